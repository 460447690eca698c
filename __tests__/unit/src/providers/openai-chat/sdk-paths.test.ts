/** @jest-environment ./environment/jest/index.ts */
import { describe, expect, it } from '@jest/globals';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { type Fixture, FixtureFileError, script, UnderstudyError, understudy } from 'jest-understudy';
import OpenAI from 'openai';

const searchTool = {
  type: 'function' as const,
  function: {
    name: 'search_docs',
    description: 'Search the docs',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
};

describe('the SDK tool runner (chat.completions.runTools)', () => {
  it('drives its own loop to the final answer', async () => {
    understudy.model.use(
      script()
        .user('How do I rotate keys?')
        .callsTool('search_docs', { query: 'rotate keys' })
        .replies('Use the rotate command, see docs/keys.'),
    );
    const seen: string[] = [];
    const run = await understudy.run(async () => {
      const runner = new OpenAI().chat.completions.runTools({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'How do I rotate keys?' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'search_docs',
              description: 'Search the docs',
              parameters: searchTool.function.parameters,
              parse: (s: string) => JSON.parse(s) as { query: string },
              function: (args: { query: string }) => {
                seen.push(args.query);
                return { hits: ['docs/keys'] };
              },
            },
          },
        ],
      });
      return runner.finalContent();
    });
    expect(seen).toEqual(['rotate keys']);
    expect(run.output).toBe('Use the rotate command, see docs/keys.');
    expect(run.toolCalls).toEqual([
      expect.objectContaining({
        name: 'search_docs',
        arguments: { query: 'rotate keys' },
        result: { hits: ['docs/keys'] },
      }),
    ]);
  });

  it('streams through the runner with parallel calls reassembled by index', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'two searches', hasToolResult: false },
        response: {
          chunkSize: 3,
          toolCalls: [
            { name: 'search_docs', arguments: { query: 'alpha beta gamma' }, id: 'call_a' },
            { name: 'search_docs', arguments: { query: 'delta' }, id: 'call_b' },
          ],
        },
      },
      { match: { userMessage: 'two searches', hasToolResult: true }, response: { content: 'Both done.' } },
    ]);
    const queries: string[] = [];
    const runner = new OpenAI().chat.completions.runTools({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'Do two searches' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'search_docs',
            description: 'Search the docs',
            parameters: searchTool.function.parameters,
            parse: (s: string) => JSON.parse(s) as { query: string },
            function: (a: { query: string }) => {
              queries.push(a.query);
              return 'ok';
            },
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe('Both done.');
    expect(queries).toEqual(['alpha beta gamma', 'delta']);
    const answered = understudy.model.calls[1].conversation.messages.filter((m) => m.role === 'tool');
    expect(answered.map((m) => m.toolCallId)).toEqual(['call_a', 'call_b']);
  });
});

describe('raw SSE streaming', () => {
  const fixtures: Fixture[] = [
    {
      match: { userMessage: 'stream me' },
      response: {
        content: 'Hello there, streaming world!',
        usage: { inputTokens: 11, outputTokens: 7 },
        chunkSize: 5,
      },
    },
  ];

  it('sends role, content deltas, finish, a usage chunk and [DONE] when include_usage is set', async () => {
    understudy.model.use(fixtures);
    const response = await fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'stream me' }],
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: string[] = [];
    const reader = response
      .body!.pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value.data);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Hello there, streaming world!');
    expect(chunks.filter((c) => c.choices[0]?.delta.content).map((c) => c.choices[0].delta.content)).toEqual([
      'Hello',
      ' ther',
      'e, st',
      'reami',
      'ng wo',
      'rld!',
    ]);
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('the SDK iterator yields the same text and the usage', async () => {
    understudy.model.use(fixtures);
    const stream = await new OpenAI().chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream me' }],
    });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello there, streaming world!');
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it('a truncated stream ends without [DONE] and the SDK sees an incomplete completion', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'cut' },
        response: { content: 'abcdefghij', chunkSize: 2, truncateAfterChunks: 3 },
      },
    ]);
    const stream = await new OpenAI().chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'cut' }],
    });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('abcd');
    expect(finish).toBeUndefined();
  });

  it('a dropped connection surfaces as an error in the SDK stream', async () => {
    understudy.model.use([
      { match: { userMessage: 'drop' }, response: { content: 'abcdefghij', chunkSize: 2, disconnect: true } },
    ]);
    const run = await understudy.run(async () => {
      const stream = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        messages: [{ role: 'user', content: 'drop' }],
      });
      for await (const _ of stream) {
        // consume until the connection drops
      }
    });
    expect(run.terminalState).toBe('errored');
    expect(String(run.error)).toMatch(/terminated|dropped/);
  });
});

describe('provider-shaped errors', () => {
  it('429 with retry-after: the SDK backs off by itself and succeeds on the next fixture', async () => {
    understudy.model.use(
      script()
        .user('busy?')
        .fails({ status: 429, message: 'Rate limit reached', retryAfter: 0 })
        .replies('Now I can answer.'),
    );
    const completion = await new OpenAI().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'busy?' }],
    });
    expect(completion.choices[0].message.content).toBe('Now I can answer.');
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([429, 200]);
  });

  it('429 reaches the agent as RateLimitError with the headers the SDK reads', async () => {
    understudy.model.use(script().user('limit').fails({ status: 429, message: 'Slow down', retryAfter: 7 }));
    const error = await new OpenAI({ maxRetries: 0 }).chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'limit' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const e = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.headers.get('retry-after')).toBe('7');
    expect(e.error).toMatchObject({
      message: 'Slow down',
      type: 'rate_limit_exceeded',
      code: 'rate_limit_exceeded',
    });
  });

  it('500 is retried by the SDK; when every attempt fails the agent errors', async () => {
    understudy.model.use([
      { match: { userMessage: 'down' }, response: { error: { status: 500, message: 'upstream down' } } },
    ]);
    const run = await understudy.run(() =>
      new OpenAI({ maxRetries: 2 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'down' }],
      }),
    );
    expect(run.modelCalls).toHaveLength(3);
    expect(run.terminalState).toBe('errored');
    expect(run.error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(run.error).toBeInstanceOf(Error);
  });

  it('400 is not retried and carries the invalid_request_error shape', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'bad' },
        response: { error: { status: 400, message: 'bad tool schema', code: 'invalid_schema' } },
      },
    ]);
    const error = await new OpenAI().chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'bad' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_schema',
    });
    expect(understudy.model.calls).toHaveLength(1);
  });
});

describe('deterministic replies', () => {
  it('usage, ids and created stay the same on every replay', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'same' },
        response: { toolCalls: [{ name: 'search_docs', arguments: '{"query":"x"}' }] },
      },
    ]);
    const ask = () =>
      new OpenAI().chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'same' }],
        tools: [searchTool],
      });
    const a = await ask();
    const b = await ask();
    expect(a.usage).toEqual(b.usage);
    expect(a.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(a.created).toBe(b.created);
    expect(a.choices[0].message.tool_calls).toEqual(b.choices[0].message.tool_calls);
    expect(a.choices[0].finish_reason).toBe('tool_calls');
  });
});

describe('realm', () => {
  it('errors and runs the package builds are test-realm objects', async () => {
    expect(() => understudy.model.use('nope' as never)).toThrow(FixtureFileError);
    const run = await understudy.run(async () => 'done');
    expect(run).toEqual(
      expect.objectContaining({ output: 'done', terminalState: 'succeeded', toolCalls: [] }),
    );
    expect(Object.getPrototypeOf(run)).toBe(Object.prototype);
    expect(run.modelCalls).toBeInstanceOf(Array);
    const err = new UnderstudyError('BAD_ARGUMENT', 'x');
    expect(err).toBeInstanceOf(Error);
  });
});
