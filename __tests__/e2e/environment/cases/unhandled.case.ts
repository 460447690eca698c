import { get } from 'node:https';
import { expect, it } from '@jest/globals';
import 'jest-understudy';

it('fetch to an unmocked host', async () => {
  const outcome = await fetch('https://example.com/data').then(
    () => 'answered',
    () => 'failed',
  );
  expect(outcome).toBe('failed');
});

it('node:https to an unmocked host', async () => {
  const outcome = await new Promise((resolve) => {
    get('https://internal.example.org/health', () => resolve('answered')).on('error', () =>
      resolve('failed'),
    );
  });
  expect(outcome).toBe('failed');
});
