/** @jest-environment ./environment/jest/index.ts */
import { describe, expect, it } from '@jest/globals';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { type Run, script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import type {
  FunctionTool,
  Response,
  ResponseCreateParamsBase,
  ResponseInputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { matchKeysOf } from '../../../../../src/conversation';
import {
  ANSWER,
  expectWeatherRun,
  QUESTION,
  runTool,
  TOOLS,
  weatherFixtures,
} from '../../../../support/agents/weather';

const tools: FunctionTool[] = TOOLS.map((t) => ({ type: 'function', ...t, strict: false }));

const INSTRUCTIONS = 'You are a travel helper.';

/** Runs the function calls of a response and returns their outputs as input items. */
function runCalls(response: Response): ResponseInputItem[] {
  const outputs: ResponseInputItem[] = [];
  for (const item of response.output) {
    if (item.type !== 'function_call') continue;
    const result = runTool(item.name, JSON.parse(item.arguments));
    outputs.push({ type: 'function_call_output', call_id: item.call_id, output: JSON.stringify(result) });
  }
  return outputs;
}

type Mode = 'create' | 'create-stream' | 'stream-helper';

/** One model turn through the chosen client path; every path ends with the whole Response. */
async function turn(
  client: OpenAI,
  mode: Mode,
  params: Partial<ResponseCreateParamsBase>,
): Promise<Response> {
  const body: ResponseCreateParamsBase = { model: 'gpt-4o', instructions: INSTRUCTIONS, tools, ...params };
  if (mode === 'create') return client.responses.create({ ...body, stream: false });
  if (mode === 'stream-helper') return client.responses.stream({ ...body, stream: true }).finalResponse();
  const stream = await client.responses.create({ ...body, stream: true });
  // Raw events: the text comes from the deltas (`output_text` is an SDK convenience, not on the wire).
  let text = '';
  let final: Response | undefined;
  for await (const event of stream) {
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === 'response.completed') final = event.response;
  }
  if (!final) throw new Error('stream ended without response.completed');
  return { ...final, output_text: text };
}

/** The loop most agents write: resend the whole input, model output included, every turn. */
async function resendingAgent(question: string, mode: Mode): Promise<string> {
  const client = new OpenAI();
  const input: ResponseInputItem[] = [{ role: 'user', content: question }];
  for (let step = 0; step < 6; step++) {
    const response = await turn(client, mode, { input });
    const outputs = runCalls(response);
    if (outputs.length === 0) return response.output_text;
    input.push(...(response.output as ResponseInputItem[]), ...outputs);
  }
  throw new Error('too many steps');
}

/** The stateful loop: each turn sends only the tool outputs and chains by `previous_response_id`. */
async function chainingAgent(question: string, mode: Mode): Promise<string> {
  const client = new OpenAI();
  let response = await turn(client, mode, { input: question });
  for (let step = 0; step < 6; step++) {
    const outputs = runCalls(response);
    if (outputs.length === 0) return response.output_text;
    response = await turn(client, mode, { previous_response_id: response.id, input: outputs });
  }
  throw new Error('too many steps');
}

const fixtures = () => weatherFixtures({ tools: 7, answer: 5 });

function expectResponsesRun(run: Run) {
  expectWeatherRun(run);
  expect(run.output).toBe(ANSWER);
  expect(run.toolCalls[0].id).toMatch(/^call_[a-z0-9]{24}$/);
  expect(run.modelCalls).toHaveLength(2);
}

describe('OpenAI Responses API through the official client', () => {
  for (const mode of ['create', 'create-stream', 'stream-helper'] as const) {
    it(`resends the full input each turn: parallel tool loop (${mode})`, async () => {
      understudy.model.use(fixtures());
      const run = await understudy.run(() => resendingAgent(QUESTION, mode));
      expectResponsesRun(run);
      expect(run.modelCalls.map((c) => c.streamed)).toEqual(
        mode === 'create' ? [false, false] : [true, true],
      );
      expect(run.modelCalls.map((c) => c.protocol)).toEqual(['openai.responses', 'openai.responses']);
      const second = run.modelCalls[1].conversation;
      expect(second.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
      expect(second.tools.map((t) => t.name)).toEqual(['get_weather', 'get_time']);
    });

    it(`chains by previous_response_id: the model sees the stored thread (${mode})`, async () => {
      understudy.model.use(fixtures());
      const run = await understudy.run(() => chainingAgent(QUESTION, mode));
      expectResponsesRun(run);
      const [first, second] = run.modelCalls;
      // Only tool outputs went over the wire; the thread came from the store.
      expect((second.request as { input: unknown[] }).input).toHaveLength(2);
      expect(second.conversation.messages).toEqual([
        { role: 'system', text: INSTRUCTIONS },
        { role: 'user', text: QUESTION },
        { role: 'assistant', text: null, toolCalls: first.response?.toolCalls },
        { role: 'tool', text: '{"city":"Paris","tempC":18}', toolCallId: run.toolCalls[0].id },
        { role: 'tool', text: '{"tz":"Europe/Paris","time":"09:30"}', toolCallId: run.toolCalls[1].id },
      ]);
      // Instructions are not inherited, and were sent again: one system message, not two.
      expect(matchKeysOf(second.conversation)).toMatchObject({
        turnIndex: 1,
        hasToolResult: true,
        toolCallId: run.toolCalls[1].id,
        systemMessage: INSTRUCTIONS,
      });
    });
  }

  it('returns the Response shape: typed output items, usage with cached and reasoning tokens', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'shape' },
        response: {
          reasoning: 'The user wants the weather.',
          content: 'Let me check.',
          toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' }, id: 'call_rome' }],
          usage: { inputTokens: 40, outputTokens: 12, cachedInputTokens: 32, reasoningTokens: 5 },
        },
      },
    ]);
    const response = await new OpenAI().responses.create({ model: 'gpt-4o', input: 'shape', tools });
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Let me check.');
    expect(response.output.map((o) => o.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(response.output[0]).toMatchObject({
      summary: [{ type: 'summary_text', text: 'The user wants the weather.' }],
    });
    expect(response.output[2]).toMatchObject({
      id: expect.stringMatching(/^fc_/),
      call_id: 'call_rome',
      name: 'get_weather',
      arguments: '{"city":"Rome"}',
      status: 'completed',
    });
    expect(response.usage).toEqual({
      input_tokens: 40,
      input_tokens_details: { cached_tokens: 32 },
      output_tokens: 12,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: 52,
    });
  });

  it('streams reasoning summaries, text and arguments as typed events with sequence numbers', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'stream all' },
        response: {
          chunkSize: 4,
          reasoning: 'Two lookups needed.',
          content: 'Checking both.',
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_p' },
            { name: 'get_weather', arguments: { city: 'Rome' }, id: 'call_r' },
          ],
        },
      },
    ]);
    const stream = new OpenAI().responses.stream({ model: 'gpt-4o', input: 'stream all', tools });
    const events: ResponseStreamEvent[] = [];
    const argSnapshots: string[] = [];
    stream.on('response.function_call_arguments.delta', (e) => argSnapshots.push(e.snapshot));
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();

    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      ...Array(5).fill('response.reasoning_summary_text.delta'),
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(4).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      ...Array(4).fill('response.function_call_arguments.delta'),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      ...Array(4).fill('response.function_call_arguments.delta'),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const reasoning = events
      .filter((e) => e.type === 'response.reasoning_summary_text.delta')
      .map((e) => (e as { delta: string }).delta)
      .join('');
    expect(reasoning).toBe('Two lookups needed.');
    expect(argSnapshots.at(3)).toBe('{"city":"Paris"}');
    expect(argSnapshots.at(-1)).toBe('{"city":"Rome"}');
    expect(final.output_text).toBe('Checking both.');
    const calls = final.output.filter((o) => o.type === 'function_call');
    expect(calls.map((c) => [c.call_id, c.name, c.arguments])).toEqual([
      ['call_p', 'get_weather', '{"city":"Paris"}'],
      ['call_r', 'get_weather', '{"city":"Rome"}'],
    ]);
  });

  it('puts named SSE events on the wire: the event line matches the data type, no [DONE]', async () => {
    understudy.model.use([{ match: { userMessage: 'raw' }, response: { content: 'Hi!' } }]);
    const response = await fetch('https://api.openai.com/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', input: 'raw', stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response
      .body!.pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    const seen: Array<{ event?: string; data: string }> = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) seen.push(r.value);
    expect(seen.every((e) => e.event === JSON.parse(e.data).type)).toBe(true);
    expect(seen.at(-1)?.event).toBe('response.completed');
    expect(JSON.parse(seen.at(-1)!.data).response).toMatchObject({
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi!' }] }],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
  });

  it('hands reasoning back on the chained turn: summary text and the raw item', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'Oslo', turnIndex: 0 },
        response: {
          reasoning: 'Need the weather.',
          toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        },
      },
      {
        match: { userMessage: 'Oslo', turnIndex: 1, hasToolResult: true },
        response: { content: 'Cold in Oslo.' },
      },
    ]);
    const run = await understudy.run(() => chainingAgent('Think first about Oslo', 'stream-helper'));
    expect(run.output).toBe('Cold in Oslo.');
    const assistant = run.modelCalls[1].conversation.messages.find((m) => m.role === 'assistant');
    expect(assistant).toMatchObject({
      reasoning: 'Need the weather.',
      opaque: [
        { type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [{ text: 'Need the weather.' }] },
      ],
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }],
    });
  });

  it('a reply cut at the token limit is incomplete, plain and streamed', async () => {
    understudy.model.use([
      { match: { userMessage: 'long' }, response: { content: 'Once upon a', finishReason: 'length' } },
    ]);
    const client = new OpenAI();
    const plain = await client.responses.create({ model: 'gpt-4o', input: 'long' });
    expect(plain.status).toBe('incomplete');
    expect(plain.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(plain.output_text).toBe('Once upon a');
    const stream = client.responses.stream({ model: 'gpt-4o', input: 'long' });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    expect(types.at(-1)).toBe('response.incomplete');
    expect((await stream.finalResponse()).status).toBe('incomplete');
  });
});

describe('instructions', () => {
  it('an empty instructions string is no system prompt: systemMessage matches the developer message alone', async () => {
    understudy.model.use([
      { match: { systemMessage: { regex: '^Be brief\\.$' } }, response: { content: 'Hi.' } },
    ]);
    const response = await new OpenAI().responses.create({
      model: 'gpt-4o',
      instructions: '',
      input: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(response.output_text).toBe('Hi.');
    expect(understudy.model.calls[0].conversation.messages.map((m) => [m.role, m.text])).toEqual([
      ['system', 'Be brief.'],
      ['user', 'hello'],
    ]);
    expect(response.instructions).toBe('');
  });
});

describe('stored responses', () => {
  it('an unknown previous_response_id is a 400 naming the parameter', async () => {
    // The test sends what the API refuses on purpose: the 400 is what it checks.
    understudy.model.contracts({ parameters: false });
    const error = await new OpenAI({ maxRetries: 0 }).responses
      .create({ model: 'gpt-4o', previous_response_id: 'resp_nope', input: 'hi' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const e = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'previous_response_not_found',
      message: "Previous response with id 'resp_nope' not found.",
    });
    expect(understudy.model.calls).toHaveLength(0);
  });

  it('store: false keeps a response out of the store, so it cannot be chained', async () => {
    understudy.model.use([{ match: { userMessage: 'ephemeral' }, response: { content: 'ok' } }]);
    const client = new OpenAI({ maxRetries: 0 });
    const first = await client.responses.create({ model: 'gpt-4o', input: 'ephemeral', store: false });
    expect((first as { store?: boolean }).store).toBe(false);
    // The test sends what the API refuses on purpose: the 400 is what it checks.
    understudy.model.contracts({ parameters: false });
    const error = await client.responses
      .create({ model: 'gpt-4o', previous_response_id: first.id, input: 'again' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe('provider-shaped errors', () => {
  it('429 with retry-after 0: the SDK retries by itself and succeeds on the next fixture', async () => {
    understudy.model.use(
      script()
        .user('busy?')
        .fails({ status: 429, message: 'Rate limit reached', retryAfter: 0 })
        .replies('Now I can answer.'),
    );
    const response = await new OpenAI().responses.create({ model: 'gpt-4o', input: 'busy?' });
    expect(response.output_text).toBe('Now I can answer.');
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([429, 200]);
  });

  it('429 reaches an agent with retries off as RateLimitError with the retry-after header', async () => {
    understudy.model.use(script().user('limit').fails({ status: 429, message: 'Slow down', retryAfter: 7 }));
    const error = await new OpenAI({ maxRetries: 0 }).responses
      .create({ model: 'gpt-4o', input: 'limit' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const e = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.headers.get('retry-after')).toBe('7');
    expect(e.error).toMatchObject({ message: 'Slow down', code: 'rate_limit_exceeded' });
  });
});
