import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { chatAgent, save } from './agents';

it('asks about the first order', async () => {
  const run = await understudy.run(() => chatAgent('Where is order A-1111?', false));
  expect(run.output).toContain('shipped');
  save('missing first', run);
});

// Left out of the first recording, so record-missing mode has something to add.
(process.env.ONLY_FIRST ? it.skip : it)('asks about a second order', async () => {
  const run = await understudy.run(() => chatAgent('Where is order B-2222?', true));
  expect(run.output).toContain('packing');
  save('missing second', run);
});
