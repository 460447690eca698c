import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';

/** A request that breaks the pairing rule: the tool message answers nothing. */
const orphan = () =>
  new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'call_nowhere', content: 'result' },
    ],
  });

it('off: understudy.model.contracts turns one rule off for this test', async () => {
  understudy.model.use([{ match: {}, response: { content: 'answered anyway' } }]);
  understudy.model.contracts({ 'tool-results': false });
  const c = await orphan();
  expect(c.choices[0].message.content).toBe('answered anyway');
});

it('off: the next test has the rule back', async () => {
  understudy.model.use([{ match: {}, response: { content: 'answered anyway' } }]);
  const error = await orphan().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.BadRequestError);
});

it('off: turning another rule off leaves this one on', async () => {
  understudy.model.use([{ match: {}, response: { content: 'answered anyway' } }]);
  understudy.model.contracts({ reasoning: false, 'empty-text': false });
  const error = await orphan().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.BadRequestError);
});

it('off: contracts(false) turns them all off', async () => {
  understudy.model.use([{ match: {}, response: { content: 'answered anyway' } }]);
  understudy.model.contracts(false);
  expect((await orphan()).choices[0].message.content).toBe('answered anyway');
});

it('off: a bad setting is refused, naming the rules', () => {
  expect(() => understudy.model.contracts({ 'tool-result': false } as never)).toThrow(
    'understudy.model.contracts(setting): unknown rule "tool-result"; the rules are tool-results, reasoning, empty-text, duplicate-ids, tool-definitions, known-models, structured-output',
  );
});
