/**
 * @jest-environment-options {"understudy": {"providers": {"ollama": true}}}
 * @jest-environment ./environment/jest/index.ts
 */

/** LangChain's ChatOllama over /api/chat: structured output through `format`, thinking, usage. */
import { expect, it } from '@jest/globals';
import { ChatOllama } from '@langchain/ollama';
import { understudy } from 'jest-understudy';
import { z } from 'zod';

it('withStructuredOutput sends the schema as `format`, and parses the reply that fits it', async () => {
  understudy.model.use([
    { match: { userMessage: 'Ollama is 22' }, response: { content: '{"age": 22, "available": false}' } },
  ]);
  const model = new ChatOllama({ model: 'llama3.1' }).withStructuredOutput(
    z.object({ age: z.number().int(), available: z.boolean() }),
  );
  const out = await model.invoke('Ollama is 22 years old and busy saving the world.');
  expect(out).toEqual({ age: 22, available: false });
  const [call] = understudy.model.calls;
  expect(call.conversation.responseFormat).toBe('json_schema');
  expect((call.request as { format?: unknown }).format).toMatchObject({ type: 'object' });
});

it('streams thinking apart from the answer, and reports the eval counts as usage', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'think' },
      response: {
        reasoning: 'The user wants a number.',
        content: 'Seven.',
        usage: { inputTokens: 12, outputTokens: 3 },
      },
    },
  ]);
  const model = new ChatOllama({ model: 'qwen3', think: true });
  const message = await model.invoke('think of a number');
  expect(message.content).toBe('Seven.');
  expect(message.additional_kwargs.reasoning_content).toBe('The user wants a number.');
  expect(message.usage_metadata).toMatchObject({ input_tokens: 12, output_tokens: 3, total_tokens: 15 });
});
