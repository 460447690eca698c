import { describe, expect, it } from '@jest/globals';
import { type Fixture, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
  {
    type: 'function',
    function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } },
  },
];

const impl: Record<string, (args: any) => unknown> = {
  get_weather: ({ city }) => ({ city, tempC: city === 'Paris' ? 18 : 25 }),
  get_time: ({ tz }) => ({ tz, time: '09:30' }),
};

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
      const result = impl[call.function.name](JSON.parse(call.function.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  throw new Error('too many steps');
}

const weatherFixtures: Fixture[] = [
  {
    match: { userMessage: 'Paris', turnIndex: 0, hasToolResult: false },
    response: {
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
      ],
    },
  },
  {
    match: { userMessage: 'Paris', turnIndex: 1, hasToolResult: true },
    response: { content: 'It is 18°C in Paris at 09:30.' },
  },
];

describe('OpenAI Chat Completions through the official client', () => {
  for (const stream of [false, true]) {
    it(`runs a parallel tool loop (${stream ? 'streamed' : 'not streamed'})`, async () => {
      understudy.model.use(weatherFixtures);
      const run = await understudy.run(() => agent('Weather and time in Paris?', stream));
      expect(run.terminalState).toBe('succeeded');
      expect(run.output).toBe('It is 18°C in Paris at 09:30.');
      expect(run.finalMessage).toBe('It is 18°C in Paris at 09:30.');
      expect(run.toolsCalled).toEqual(['get_weather', 'get_time']);
      expect(run.toolCalls[0]).toMatchObject({
        name: 'get_weather',
        arguments: { city: 'Paris' },
        result: { city: 'Paris', tempC: 18 },
        answered: true,
      });
      expect(run.toolCalls[1].result).toEqual({ tz: 'Europe/Paris', time: '09:30' });
      expect(run.toolCalls[0].id).toMatch(/^call_[a-z0-9]{24}$/);
      expect(run.toolCalls[0].id).not.toBe(run.toolCalls[1].id);
      expect(run.modelCalls).toHaveLength(2);
      expect(run.modelCalls.map((c) => c.streamed)).toEqual([stream, stream]);
      expect(understudy.model.calls).toHaveLength(2);
    });
  }
});
