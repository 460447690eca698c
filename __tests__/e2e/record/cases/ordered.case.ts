import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { save } from './support';

const client = () => new OpenAI({ baseURL: `${process.env.AIMOCK_URL}/v1`, maxRetries: 2 });
const ask = async (content: string) =>
  (await client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] }))
    .choices[0].message.content;

it('retries a rate limit', async () => {
  const run = await understudy.run(() => ask('Are you busy?'));
  expect(run.output).toBe('Done after a retry.');
  // The SDK saw the 429 and sent the same request again: two calls, on record and on replay.
  expect(run.modelCalls.map((c) => c.error?.status ?? 200)).toEqual([429, 200]);
  save('retries a rate limit', run);
});

it('rolls a die twice', async () => {
  const run = await understudy.run(async () => [await ask('Roll a die.'), await ask('Roll a die.')]);
  expect(run.output).toEqual(['4', '2']);
  save('rolls a die twice', run);
});
