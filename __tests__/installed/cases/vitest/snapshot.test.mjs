// Prompt snapshots and token budgets under Vitest: SNAP_PROMPT is the system prompt the agent sends.

import { script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { expect, it } from 'vitest';

it('snapshots the prompt', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const run = await understudy.run(() =>
    new OpenAI().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: process.env.SNAP_PROMPT },
        { role: 'user', content: 'hi' },
      ],
    }),
  );
  expect(run).toMatchPromptSnapshot();
  expect(run).toHavePromptTokensBelow(1000);
});
