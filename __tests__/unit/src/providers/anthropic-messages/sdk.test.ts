/** @jest-environment ./environment/jest/index.ts */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import {
  ANSWER,
  expectWeatherRun,
  QUESTION,
  runTool,
  TOOLS,
  weatherFixtures,
} from '../../../../support/agents/weather';

const tools: Tool[] = TOOLS.map(({ parameters, ...t }) => ({ ...t, input_schema: parameters }));

type Mode = 'create' | 'create-stream' | 'stream-helper';

/** A plain agent loop, as teams write it: call the model, run every tool_use block, repeat. */
async function agent(question: string, mode: Mode): Promise<string> {
  const client = new Anthropic();
  const messages: MessageParam[] = [{ role: 'user', content: question }];
  const params = { model: 'claude-sonnet-4-6', max_tokens: 1024, system: 'You are a travel helper.', tools };
  for (let step = 0; step < 6; step++) {
    let message: Anthropic.Message;
    if (mode === 'create') {
      message = await client.messages.create({ ...params, messages });
    } else if (mode === 'stream-helper') {
      message = await client.messages.stream({ ...params, messages }).finalMessage();
    } else {
      // Raw events, reassembled by hand the way the docs show it.
      const stream = await client.messages.create({ ...params, messages, stream: true });
      const blocks: any[] = [];
      const json: string[] = [];
      let stop: Anthropic.Message['stop_reason'] = null;
      let id = '';
      for await (const event of stream) {
        if (event.type === 'message_start') id = event.message.id;
        if (event.type === 'content_block_start') {
          blocks[event.index] = { ...event.content_block };
          json[event.index] = '';
        }
        if (event.type === 'content_block_delta') {
          if (event.delta.type === 'text_delta') blocks[event.index].text += event.delta.text;
          if (event.delta.type === 'input_json_delta') json[event.index] += event.delta.partial_json;
        }
        if (event.type === 'content_block_stop' && blocks[event.index].type === 'tool_use')
          blocks[event.index].input = JSON.parse(json[event.index] || '{}');
        if (event.type === 'message_delta') stop = event.delta.stop_reason;
      }
      message = { id, content: blocks, stop_reason: stop } as Anthropic.Message;
    }
    messages.push({ role: 'assistant', content: message.content });
    const calls = message.content.filter((b) => b.type === 'tool_use');
    if (message.stop_reason !== 'tool_use' || calls.length === 0) {
      return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    }
    const results: ToolResultBlockParam[] = calls.map((call) => ({
      type: 'tool_result',
      tool_use_id: call.id,
      content: JSON.stringify(runTool(call.name, call.input)),
    }));
    messages.push({ role: 'user', content: results });
  }
  throw new Error('too many steps');
}

describe('Anthropic Messages through the official client', () => {
  for (const mode of ['create', 'create-stream', 'stream-helper'] as const) {
    it(`runs a parallel tool loop (${mode})`, async () => {
      understudy.model.use(weatherFixtures({ tools: 4, answer: 6 }));
      const run = await understudy.run(() => agent(QUESTION, mode));
      expectWeatherRun(run);
      expect(run.output).toBe(ANSWER);
      expect(run).toHaveCalledToolSequence(['get_weather', 'get_time']);
      const streamed = mode !== 'create';
      expect(run.modelCalls.map((c) => c.streamed)).toEqual([streamed, streamed]);
      // The second request carried both results back, linked by the ids the first reply sent.
      const second = run.modelCalls[1].conversation;
      expect(second.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(
        run.toolCalls.map((c) => c.id),
      );
      expect(second.messages[0]).toEqual({ role: 'system', text: 'You are a travel helper.' });
      expect(second.tools.map((t) => t.name)).toEqual(['get_weather', 'get_time']);
    });
  }

  it('messages.stream() emits text and input JSON events and a final message with usage', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'Lisbon' },
        response: {
          content: 'Checking Lisbon.',
          toolCalls: [{ name: 'get_weather', arguments: { city: 'Lisbon' }, id: 'toolu_fixture_1' }],
          usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 100 },
          chunkSize: 5,
        },
      },
    ]);
    const stream = new Anthropic().messages.stream({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      tools,
      messages: [{ role: 'user', content: 'Weather in Lisbon?' }],
    });
    const texts: string[] = [];
    const json: string[] = [];
    stream.on('text', (t) => texts.push(t));
    stream.on('inputJson', (partial) => json.push(partial));
    const final = await stream.finalMessage();
    expect(texts).toEqual(['Check', 'ing L', 'isbon', '.']);
    expect(json.join('')).toBe('{"city":"Lisbon"}');
    expect(final).toMatchObject({
      id: expect.stringMatching(/^msg_understudy\d{6}$/),
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Checking Lisbon.' },
        { type: 'tool_use', id: 'toolu_fixture_1', name: 'get_weather', input: { city: 'Lisbon' } },
      ],
      usage: { input_tokens: 20, cache_read_input_tokens: 100, output_tokens: 30 },
    });
    expect(stream.request_id).toBe(final.id.replace('msg_', 'req_'));
  });

  it('extended thinking: the thinking block streams with its signature and goes back on the next turn', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'Think', turnIndex: 0 },
        response: {
          reasoning: 'The user wants weather; call the tool.',
          toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
          usage: { reasoningTokens: 9 },
        },
      },
      { match: { userMessage: 'Think', turnIndex: 1, hasToolResult: true }, response: { content: 'Cold.' } },
    ]);
    const client = new Anthropic();
    const params = {
      model: 'claude-sonnet-4-6',
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools,
    };
    const thoughts: string[] = [];
    const first = client.messages.stream({
      ...params,
      messages: [{ role: 'user', content: 'Think: Oslo weather?' }],
    });
    first.on('thinking', (delta) => thoughts.push(delta));
    const reply = await first.finalMessage();
    expect(thoughts.join('')).toBe('The user wants weather; call the tool.');
    expect(reply.content[0]).toEqual({
      type: 'thinking',
      thinking: 'The user wants weather; call the tool.',
      signature: expect.stringMatching(/^[A-Za-z0-9+/]{100,}={0,2}$/),
    });
    expect(reply.usage.output_tokens_details).toEqual({ thinking_tokens: 9 });
    const toolUse = reply.content.find((b) => b.type === 'tool_use');
    if (toolUse?.type !== 'tool_use') throw new Error('no tool_use block');
    const final = await client.messages.create({
      ...params,
      messages: [
        { role: 'user', content: 'Think: Oslo weather?' },
        { role: 'assistant', content: reply.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '{"tempC":-3}' }],
        },
      ],
    });
    expect(final.content).toEqual([{ type: 'text', text: 'Cold.' }]);
    const sent = understudy.model.calls[1].conversation.messages[1];
    expect(sent).toMatchObject({ role: 'assistant', reasoning: 'The user wants weather; call the tool.' });
    expect(sent.opaque).toEqual([reply.content[0]]);
  });

  it('a tool_result flagged is_error reaches the run as the call error', async () => {
    understudy.model.use(
      script()
        .user('Delete it')
        .callsTool('get_weather', { city: 'Nowhere' })
        .replies('That city does not exist.'),
    );
    const run = await understudy.run(async () => {
      const client = new Anthropic();
      const messages: MessageParam[] = [{ role: 'user', content: 'Delete it' }];
      const first = await client.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        tools,
        messages,
      });
      const call = first.content.find((b) => b.type === 'tool_use');
      if (call?.type !== 'tool_use') throw new Error('no tool_use block');
      messages.push({ role: 'assistant', content: first.content });
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, is_error: true, content: 'unknown city' }],
      });
      const second = await client.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        tools,
        messages,
      });
      return second.content[0].type === 'text' ? second.content[0].text : '';
    });
    expect(run.output).toBe('That city does not exist.');
    expect(run.toolCalls).toEqual([
      expect.objectContaining({ name: 'get_weather', error: 'unknown city', answered: true }),
    ]);
  });
});

describe('provider-shaped errors', () => {
  it('529 overloaded_error: the SDK retries by itself and succeeds on the next fixture', async () => {
    understudy.model.use(
      script()
        .user('busy?')
        .fails({ status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfter: 0 })
        .replies('Now I can answer.'),
    );
    const message = await new Anthropic().messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'busy?' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Now I can answer.' }]);
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([529, 200]);
  });

  it('429 rate_limit_error: the streaming helper retries too and succeeds on the next fixture', async () => {
    understudy.model.use(
      script()
        .user('limit?')
        .fails({ status: 429, message: 'Rate limited', retryAfter: 0 })
        .replies('Done waiting.'),
    );
    const final = await new Anthropic().messages
      .stream({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'limit?' }] })
      .finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Done waiting.' }]);
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([429, 200]);
    expect(understudy.model.calls.map((c) => c.streamed)).toEqual([true, true]);
  });

  it('429 reaches the agent as RateLimitError with the Anthropic envelope and headers', async () => {
    understudy.model.use(script().user('limit').fails({ status: 429, message: 'Slow down', retryAfter: 7 }));
    const error = await new Anthropic({ maxRetries: 0 }).messages
      .create({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'limit' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const e = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.headers.get('retry-after')).toBe('7');
    expect(e.requestID).toMatch(/^req_understudy/);
    expect(e.error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Slow down' },
    });
  });

  it('a 529 on every attempt exhausts the retries and the run errors with the SDK error', async () => {
    understudy.model.use([
      { match: { userMessage: 'down' }, response: { error: { status: 529, message: 'Overloaded' } } },
    ]);
    const run = await understudy.run(() =>
      new Anthropic({ maxRetries: 1 }).messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'down' }],
      }),
    );
    expect(run.modelCalls).toHaveLength(2);
    expect(run.terminalState).toBe('errored');
    expect(run.error).toBeInstanceOf(Anthropic.APIError);
    expect((run.error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((run.error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'overloaded_error' },
    });
  });

  it('a request without max_tokens gets the API 400 naming the field, not retried', async () => {
    understudy.model.use(script().user('hi').replies('hello'));
    // The test sends what the API refuses on purpose: the 400 is what it checks.
    understudy.model.contracts({ parameters: false });

    const error = await new Anthropic().messages
      .create({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }] } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
    expect(understudy.model.calls).toHaveLength(0);
  });
});
