// test.concurrent: a test file has one mock model and one world, so jest-understudy refuses
// concurrent tests at their first use of it, each refusal failing its own test, as under Jest.

import { script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { expect, it, test } from 'vitest';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ask = (content) =>
  new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content }],
  });

test.concurrent('a concurrent test that registers its fixtures and runs the agent', async () => {
  understudy.model.use(script().user('one').replies('One.'));
  await sleep(20);
  const run = await understudy.run(() => ask('one'));
  expect(run).toHaveFinalMessage('One.');
});

test.concurrent('a concurrent agent that swallows its refused model call', async () => {
  await sleep(10);
  const answer = await ask('two').catch((error) => error.status);
  expect(answer).toBe(409);
});

test.concurrent('a concurrent test whose request to a host nothing serves is refused', async () => {
  await sleep(5);
  expect(await fetch('https://tracker.invalid/collect').catch(() => 'failed')).toBe('failed');
});

test.concurrent('a concurrent test that does not use jest-understudy', async () => {
  await sleep(10);
  expect(1 + 1).toBe(2);
});

it('a test after them uses the model as usual', async () => {
  understudy.model.use(script().user('three').replies('Three.'));
  const run = await understudy.run(() => ask('three'));
  expect(run).toHaveFinalMessage('Three.');
  expect(understudy.model.calls).toHaveLength(1);
});
