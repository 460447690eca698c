import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { describe, expect, it } from '@jest/globals';
import { APICallError, generateText, isStepCount, jsonSchema, RetryError, streamText, tool } from 'ai';
import { type Fixture, script, understudy } from 'jest-understudy';

const google = createGoogleGenerativeAI({ apiKey: 'x' });
const model = google('gemini-2.5-flash');

const executed: string[] = [];
const tools = {
  get_weather: tool({
    description: 'Current weather for a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
    execute: async ({ city }) => {
      executed.push(`get_weather:${city}`);
      if (city === 'Atlantis') throw new Error('unknown city');
      return { city, tempC: city === 'Paris' ? 18 : 25 };
    },
  }),
  get_time: tool({
    description: 'Local time in a time zone',
    inputSchema: jsonSchema<{ tz: string }>({
      type: 'object',
      properties: { tz: { type: 'string' } },
      required: ['tz'],
    }),
    execute: async ({ tz }) => {
      executed.push(`get_time:${tz}`);
      return { tz, time: '09:30' };
    },
  }),
};

const weatherFixtures: Fixture[] = [
  {
    match: { userMessage: 'Paris', turnIndex: 0, hasToolResult: false },
    response: {
      chunkSize: 4,
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
      ],
    },
  },
  {
    match: { userMessage: 'Paris', turnIndex: 1, hasToolResult: true },
    response: { chunkSize: 4, content: 'It is 18°C in Paris at 09:30.' },
  },
];

async function agent(stream: boolean) {
  const options = {
    model,
    system: 'You are a travel helper.',
    prompt: 'Weather and time in Paris?',
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
      understudy.model.use(weatherFixtures);
      const run = await understudy.run(() => agent(stream));
      const { text, steps } = run.output as Awaited<ReturnType<typeof agent>>;

      expect(text).toBe('It is 18°C in Paris at 09:30.');
      expect(executed.sort()).toEqual(['get_time:Europe/Paris', 'get_weather:Paris']);
      expect(steps).toHaveLength(2);
      expect(steps[0].finishReason).toBe('tool-calls');
      expect(steps[1].finishReason).toBe('stop');
      // The SDK took the call ids from the wire and sent them back with the results.
      expect(steps[0].toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
        [run.toolCalls[0].id, 'get_weather', { city: 'Paris' }],
        [run.toolCalls[1].id, 'get_time', { tz: 'Europe/Paris' }],
      ]);

      expect(run.terminalState).toBe('succeeded');
      expect(run.finalMessage).toBe('It is 18°C in Paris at 09:30.');
      expect(run).toHaveCalledToolSequence([
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_time', args: { tz: 'Europe/Paris' } },
      ]);
      expect(run.toolCalls.map((c) => c.result)).toEqual([
        { city: 'Paris', tempC: 18 },
        { tz: 'Europe/Paris', time: '09:30' },
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
