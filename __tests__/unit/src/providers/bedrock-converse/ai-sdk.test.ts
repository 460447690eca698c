/**
 * The AI SDK's Amazon Bedrock provider (Converse / ConverseStream) against the mock model.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { describe, expect, it } from '@jest/globals';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { type Fixture, understudy } from 'jest-understudy';

// Credentials and region come from the environment, where replay puts placeholders.
const bedrock = createAmazonBedrock();
const model = bedrock('us.anthropic.claude-sonnet-4-5-20250929-v1:0');

const tools = {
  get_weather: tool({
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }),
    execute: async ({ city }) => ({ city, tempC: 18 }),
  }),
  get_time: tool({
    inputSchema: jsonSchema<{ tz: string }>({ type: 'object', properties: { tz: { type: 'string' } } }),
    execute: async ({ tz }) => ({ tz, time: '09:30' }),
  }),
};

const fixtures: Fixture[] = [
  {
    match: { userMessage: 'Paris', hasToolResult: false },
    response: {
      chunkSize: 5,
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
      ],
      usage: { inputTokens: 120, outputTokens: 30 },
    },
  },
  { match: { userMessage: 'Paris', hasToolResult: true }, response: { content: '18°C in Paris at 09:30.' } },
];

describe('@ai-sdk/amazon-bedrock', () => {
  for (const stream of [false, true])
    it(`runs a parallel tool loop (${stream ? 'streamText' : 'generateText'})`, async () => {
      understudy.model.use(fixtures);
      const run = await understudy.run(async () => {
        const params = { model, tools, stopWhen: stepCountIs(4), prompt: 'Weather and time in Paris?' };
        if (!stream) return (await generateText(params)).text;
        const result = streamText(params);
        return await result.text;
      });
      expect(run).toHaveTerminalState('succeeded');
      expect(run.output).toBe('18°C in Paris at 09:30.');
      expect(run).toHaveCalledToolSequence([
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_time', args: { tz: 'Europe/Paris' } },
      ]);
      expect(run.toolCalls.map((c) => c.result)).toEqual([
        { city: 'Paris', tempC: 18 },
        { tz: 'Europe/Paris', time: '09:30' },
      ]);
      expect(understudy.model.calls.map((c) => [c.protocol, c.streamed, c.contract])).toEqual([
        ['bedrock.converse', stream, undefined],
        ['bedrock.converse', stream, undefined],
      ]);
    });

  it('reports usage and the finish reason', async () => {
    understudy.model.use([
      { match: {}, response: { content: 'Hello.', usage: { inputTokens: 9, outputTokens: 2 } } },
    ]);
    const result = await generateText({ model, prompt: 'Say hello' });
    expect(result.text).toBe('Hello.');
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 2, totalTokens: 11 });
  });
});
