/** @jest-environment ./environment/jest/index.ts */
import { createAnthropic } from '@ai-sdk/anthropic';
import { describe, expect, it } from '@jest/globals';
import { generateText, stepCountIs, streamText } from 'ai';
import { type Run, script, understudy } from 'jest-understudy';
import { aiSdkWeatherTools } from '../../../../support/agents/ai-sdk-weather';
import { ANSWER, expectWeatherRun, QUESTION, weatherFixtures } from '../../../../support/agents/weather';

const anthropic = createAnthropic({ apiKey: 'x' });

const tools = aiSdkWeatherTools();

const fixtures = weatherFixtures({
  tools: 4,
  answer: 7,
  usage: { inputTokens: 200, outputTokens: 40, cachedInputTokens: 150 },
});

function expectParallelLoop(run: Run, streamed: boolean) {
  expectWeatherRun(run);
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
        prompt: QUESTION,
        tools,
        stopWhen: stepCountIs(5),
      });
      return result.text;
    });
    expectParallelLoop(run, false);
    expect(run.output).toBe(ANSWER);
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
        prompt: QUESTION,
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
    expect(run.output).toBe(ANSWER);
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
