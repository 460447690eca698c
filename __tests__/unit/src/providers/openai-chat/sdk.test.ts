/** @jest-environment ./environment/jest/index.ts */
import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import {
  ANSWER,
  expectWeatherRun,
  QUESTION,
  runTool,
  TOOLS,
  weatherFixtures,
} from '../../../../support/agents/weather';

const tools: ChatCompletionTool[] = TOOLS.map((t) => ({ type: 'function', function: t }));

/** A plain agent loop, as teams write it: call the model, run requested tools, repeat. */
async function agent(question: string, stream: boolean): Promise<string> {
  const client = new OpenAI();
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a travel helper.' },
    { role: 'user', content: question },
  ];
  for (let step = 0; step < 6; step++) {
    const message = stream
      ? (await client.chat.completions.stream({ model: 'gpt-4o', messages, tools }).finalChatCompletion())
          .choices[0].message
      : (await client.chat.completions.create({ model: 'gpt-4o', messages, tools })).choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content ?? '';
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      const result = runTool(call.function.name, JSON.parse(call.function.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  throw new Error('too many steps');
}

describe('OpenAI Chat Completions through the official client', () => {
  for (const stream of [false, true]) {
    it(`runs a parallel tool loop (${stream ? 'streamed' : 'not streamed'})`, async () => {
      understudy.model.use(weatherFixtures());
      const run = await understudy.run(() => agent(QUESTION, stream));
      expectWeatherRun(run);
      expect(run.output).toBe(ANSWER);
      expect(run.toolCalls[0].id).toMatch(/^call_[a-z0-9]{24}$/);
      expect(run.modelCalls).toHaveLength(2);
      expect(run.modelCalls.map((c) => c.streamed)).toEqual([stream, stream]);
      expect(understudy.model.calls).toHaveLength(2);
    });
  }
});
