import { createAnthropic } from '@ai-sdk/anthropic';
import { describe, expect, it } from '@jest/globals';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { type Fixture, script, understudy } from 'jest-understudy';

const anthropic = createAnthropic({ apiKey: 'x' });

const tools = {
  get_weather: tool({
    description: 'Weather by city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
    execute: async ({ city }) => ({ city, tempC: city === 'Paris' ? 18 : 25 }),
  }),
  get_time: tool({
    description: 'Local time by time zone',
    inputSchema: jsonSchema<{ tz: string }>({
      type: 'object',
      properties: { tz: { type: 'string' } },
      required: ['tz'],
    }),
    execute: async ({ tz }) => ({ tz, time: '09:30' }),
  }),
};

const fixtures: Fixture[] = [
  {
    match: { userMessage: 'Paris', turnIndex: 0, hasToolResult: false },
    response: {
      chunkSize: 4,
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
      ],
      usage: { inputTokens: 200, outputTokens: 40, cachedInputTokens: 150 },
    },
  },
  {
    match: { userMessage: 'Paris', turnIndex: 1, hasToolResult: true },
    response: { content: 'It is 18°C in Paris at 09:30.', chunkSize: 7 },
  },
];

function expectParallelLoop(run: Awaited<ReturnType<typeof understudy.run>>, streamed: boolean) {
  expect(run.terminalState).toBe('succeeded');
  expect(run.finalMessage).toBe('It is 18°C in Paris at 09:30.');
  expect(run.toolCalls).toEqual([
    expect.objectContaining({
      name: 'get_weather',
      arguments: { city: 'Paris' },
      result: { city: 'Paris', tempC: 18 },
    }),
    expect.objectContaining({
      name: 'get_time',
      arguments: { tz: 'Europe/Paris' },
      result: { tz: 'Europe/Paris', time: '09:30' },
    }),
  ]);
  expect(run.modelCalls.map((c) => c.streamed)).toEqual([streamed, streamed]);
  const second = run.modelCalls[1].conversation;
  expect(second.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(
    run.toolCalls.map((c) => c.id),
  );
  expect(second.messages[0]).toEqual({ role: 'system', text: 'You are a travel helper.' });
}

describe('Vercel AI SDK (@ai-sdk/anthropic)', () => {
  it('generateText runs parallel tools and stops after the answer (stopWhen: stepCountIs)', async () => {
    understudy.model.use(fixtures);
    let result: Awaited<ReturnType<typeof generateText<typeof tools>>> | undefined;
    const run = await understudy.run(async () => {
      result = await generateText({
        model: anthropic('claude-sonnet-4-6'),
        system: 'You are a travel helper.',
        prompt: 'Weather and time in Paris?',
        tools,
        stopWhen: stepCountIs(5),
      });
      return result.text;
    });
    expectParallelLoop(run, false);
    expect(run.output).toBe('It is 18°C in Paris at 09:30.');
    if (!result) throw new Error('no result');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0].finishReason).toBe('tool-calls');
    expect(result.steps[0].toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_time', { tz: 'Europe/Paris' }],
    ]);
    expect(result.steps[0].toolCalls.map((c) => c.toolCallId)).toEqual(run.toolCalls.map((c) => c.id));
    // Cached tokens: Anthropic sends them apart from input_tokens; the SDK adds them back up.
    expect(result.steps[0].usage).toMatchObject({
      inputTokens: 200,
      outputTokens: 40,
      inputTokenDetails: { cacheReadTokens: 150, noCacheTokens: 50 },
    });
    expect(result.finishReason).toBe('stop');
  });

  it('streamText reassembles parallel tool calls from input_json_delta fragments', async () => {
    understudy.model.use(fixtures);
    const deltas: string[] = [];
    const run = await understudy.run(async () => {
      const result = streamText({
        model: anthropic('claude-sonnet-4-6'),
        system: 'You are a travel helper.',
        prompt: 'Weather and time in Paris?',
        tools,
        stopWhen: stepCountIs(5),
      });
      for await (const part of result.fullStream) {
        if (part.type === 'tool-input-delta') deltas.push(part.delta);
        if (part.type === 'error') throw part.error;
      }
      const calls = (await result.steps)[0].toolCalls;
      expect(calls.map((c) => [c.toolName, c.input])).toEqual([
        ['get_weather', { city: 'Paris' }],
        ['get_time', { tz: 'Europe/Paris' }],
      ]);
      return result.text;
    });
    expectParallelLoop(run, true);
    expect(run.output).toBe('It is 18°C in Paris at 09:30.');
    expect(deltas.join('')).toBe('{"city":"Paris"}{"tz":"Europe/Paris"}');
    expect(deltas.length).toBeGreaterThan(4);
  });

  it('streamText surfaces thinking as reasoning and passes its signature back', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'Oslo', turnIndex: 0 },
        response: {
          reasoning: 'Need the weather tool.',
          toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        },
      },
      {
        match: { userMessage: 'Oslo', turnIndex: 1, hasToolResult: true },
        response: { content: 'Mild, 25°C.' },
      },
    ]);
    const result = streamText({
      model: anthropic('claude-sonnet-4-6'),
      prompt: 'Oslo weather?',
      tools,
      stopWhen: stepCountIs(3),
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
    });
    expect(await result.text).toBe('Mild, 25°C.');
    const steps = await result.steps;
    expect(steps[0].reasoningText).toBe('Need the weather tool.');
    const sentBack = understudy.model.calls[1].conversation.messages.find((m) => m.role === 'assistant');
    expect(sentBack).toMatchObject({ reasoning: 'Need the weather tool.' });
    expect(sentBack?.opaque).toEqual([
      expect.objectContaining({
        type: 'thinking',
        signature: expect.stringMatching(/^[A-Za-z0-9+/]{100,}={0,2}$/),
      }),
    ]);
  });

  it('retries a 529 overloaded_error with its own backoff and succeeds on the next fixture', async () => {
    understudy.model.use(
      script()
        .user('busy?')
        .fails({ status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfter: 0 })
        .replies('Now I can answer.'),
    );
    const { text } = await generateText({ model: anthropic('claude-sonnet-4-6'), prompt: 'busy?' });
    expect(text).toBe('Now I can answer.');
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([529, 200]);
  });
});
