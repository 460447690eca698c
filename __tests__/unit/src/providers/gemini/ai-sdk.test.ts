/** @jest-environment ./environment/jest/index.ts */
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { describe, expect, it } from '@jest/globals';
import { APICallError, generateText, isStepCount, RetryError, streamText } from 'ai';
import { script, understudy } from 'jest-understudy';
import { aiSdkWeatherTools } from '../../../../support/agents/ai-sdk-weather';
import { ANSWER, expectWeatherRun, QUESTION, weatherFixtures } from '../../../../support/agents/weather';

const google = createGoogleGenerativeAI({ apiKey: 'x' });
const model = google('gemini-2.5-flash');

const executed: string[] = [];
const tools = aiSdkWeatherTools({
  observe: (name, input) => {
    executed.push(`${name}:${input.city ?? input.tz}`);
    if (input.city === 'Atlantis') throw new Error('unknown city');
  },
});

async function agent(stream: boolean) {
  const options = {
    model,
    system: 'You are a travel helper.',
    prompt: QUESTION,
    tools,
    stopWhen: isStepCount(5),
  };
  if (!stream) {
    const r = await generateText(options);
    return { text: r.text, steps: r.steps };
  }
  const r = streamText(options);
  return { text: await r.text, steps: await r.steps };
}

describe('Gemini through the Vercel AI SDK (@ai-sdk/google)', () => {
  for (const stream of [false, true]) {
    it(`runs a multi-step tool loop with parallel calls (${stream ? 'streamText' : 'generateText'})`, async () => {
      executed.length = 0;
      understudy.model.use(weatherFixtures({ tools: 4, answer: 4 }));
      const run = await understudy.run(() => agent(stream));
      const { text, steps } = run.output as Awaited<ReturnType<typeof agent>>;

      expect(text).toBe(ANSWER);
      expect(executed.sort()).toEqual(['get_time:Europe/Paris', 'get_weather:Paris']);
      expect(steps).toHaveLength(2);
      expect(steps[0].finishReason).toBe('tool-calls');
      expect(steps[1].finishReason).toBe('stop');
      // The SDK took the call ids from the wire and sent them back with the results.
      expect(steps[0].toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
        [run.toolCalls[0].id, 'get_weather', { city: 'Paris' }],
        [run.toolCalls[1].id, 'get_time', { tz: 'Europe/Paris' }],
      ]);

      expectWeatherRun(run);
      expect(run).toHaveCalledToolSequence([
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_time', args: { tz: 'Europe/Paris' } },
      ]);
      expect(run.modelCalls.map((c) => c.streamed)).toEqual([stream, stream]);
      expect(run.modelCalls[1].conversation.messages.map((m) => m.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
        'tool',
      ]);
    });
  }

  it('reads reasoning and usage (cached and thought tokens) from the wire', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'Think first' },
        response: {
          reasoning: 'Short thought.',
          content: 'Answer.',
          usage: { inputTokens: 40, outputTokens: 15, cachedInputTokens: 10, reasoningTokens: 5 },
        },
      },
    ]);
    for (const stream of [false, true]) {
      const r = stream
        ? await (async () => {
            const s = streamText({ model, prompt: 'Think first' });
            return { text: await s.text, reasoningText: await s.reasoningText, usage: await s.usage };
          })()
        : await generateText({ model, prompt: 'Think first' });
      expect(r.text).toBe('Answer.');
      expect(r.reasoningText).toBe('Short thought.');
      expect(r.usage).toMatchObject({
        inputTokens: 40,
        outputTokens: 15,
        totalTokens: 55,
        inputTokenDetails: { cacheReadTokens: 10, noCacheTokens: 30 },
        outputTokenDetails: { reasoningTokens: 5, textTokens: 10 },
      });
    }
  });

  it('sends a failing tool back as a functionResponse error, seen as the call’s error', async () => {
    understudy.model.use(
      script()
        .user('Weather in Atlantis?')
        .callsTool('get_weather', { city: 'Atlantis' })
        .replies('I could not find Atlantis.'),
    );
    const run = await understudy.run(async () => {
      const r = await generateText({
        model,
        prompt: 'Weather in Atlantis?',
        tools,
        stopWhen: isStepCount(3),
      });
      return r.text;
    });
    expect(run.output).toBe('I could not find Atlantis.');
    // The SDK reports the thrown error as `response: { name, error: 'Error: unknown city' }`.
    expect(run.toolCalls[0]).toMatchObject({
      name: 'get_weather',
      error: 'Error: unknown city',
      answered: true,
    });
    const sent = (run.modelCalls[1].request as any).contents[2].parts[0].functionResponse;
    expect(sent).toEqual({
      id: run.toolCalls[0].id,
      name: 'get_weather',
      response: { name: 'get_weather', error: 'Error: unknown city' },
    });
  });
});

describe('the AI SDK retry on Gemini errors', () => {
  for (const [status, stream] of [
    [429, false],
    [503, true],
  ] as const) {
    it(`retries a ${status} (maxRetries) and succeeds on the next fixture (${stream ? 'streamText' : 'generateText'})`, async () => {
      understudy.model.use(
        script()
          .user('Summarize the report')
          .fails({
            status,
            message: status === 429 ? 'Quota exceeded' : 'The model is overloaded.',
            retryAfter: 0,
          })
          .replies('Summary: all good.'),
      );
      const run = await understudy.run(async () => {
        const options = { model, prompt: 'Summarize the report', maxRetries: 2 };
        return stream ? await streamText(options).text : (await generateText(options)).text;
      });
      expect(run.output).toBe('Summary: all good.');
      expect(run.terminalState).toBe('succeeded');
      expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([status, 200]);
    });
  }

  it('gives up after maxRetries with a RetryError carrying the Gemini error', async () => {
    understudy.model.use(
      script().user('Summarize the report').fails({ status: 429, message: 'Quota exceeded', retryAfter: 0 }),
    );
    const error = await generateText({ model, prompt: 'Summarize the report', maxRetries: 1 }).catch(
      (e) => e,
    );
    expect(RetryError.isInstance(error)).toBe(true);
    const last = (error as RetryError).lastError;
    expect(APICallError.isInstance(last)).toBe(true);
    expect(last).toMatchObject({ statusCode: 429, message: 'Quota exceeded', isRetryable: true });
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([429, 429]);
  });

  it('does not retry a 400', async () => {
    understudy.model.use(
      script().user('Summarize the report').fails({ status: 400, message: 'Invalid argument: bad schema' }),
    );
    const error = await generateText({ model, prompt: 'Summarize the report', maxRetries: 2 }).catch(
      (e) => e,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 400, isRetryable: false });
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([400]);
  });
});
