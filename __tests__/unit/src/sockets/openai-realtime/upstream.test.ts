/**
 * Record and live modes for OpenAI Realtime: the provider's events read back into the neutral
 * reply (./upstream-reply.ts, against golden samples of the API's events), and the relay that
 * keeps one provider socket per client socket (./relay.ts), driven by a scripted provider.
 */
import { describe, expect, it } from '@jest/globals';
import type { Conversation } from '../../../../../src/conversation';
import { RealtimeRelay } from '../../../../../src/sockets/openai-realtime/relay';
import { realtimeReplyOf } from '../../../../../src/sockets/openai-realtime/upstream-reply';
import type { SocketOpening, UpstreamSocketRequest } from '../../../../../src/sockets/protocol';
import audio from './golden/upstream-audio.json';
import failed from './golden/upstream-failed.json';
import refused from './golden/upstream-refused.json';
import toolCall from './golden/upstream-tool-call.json';

type Obj = Record<string, any>;

describe('a Realtime response, read back', () => {
  it('a function call: its id, name and arguments, and the usage with cached input', () => {
    expect(realtimeReplyOf(toolCall, 'gpt-realtime')).toEqual({
      ok: true,
      complete: true,
      reply: {
        content: null,
        toolCalls: [{ id: 'call_8fK2x', name: 'lookup_order', arguments: '{"id":7}' }],
        finishReason: 'tool_calls',
        usage: {
          inputTokens: 132,
          outputTokens: 121,
          totalTokens: 253,
          cachedInputTokens: 64,
          reasoningTokens: 0,
        },
        model: 'gpt-realtime',
      },
    });
  });

  it('a spoken answer: its transcript is the text', () => {
    const result = realtimeReplyOf(audio, 'gpt-realtime');
    expect(result).toMatchObject({
      ok: true,
      complete: true,
      reply: { content: 'Order 7 has shipped.', toolCalls: [], finishReason: 'stop' },
    });
  });

  it('a failed response is the error it names (a rate limit as a 429)', () => {
    expect(realtimeReplyOf(failed, 'gpt-realtime')).toEqual({
      ok: false,
      error: {
        status: 429,
        type: 'rate_limit_exceeded',
        code: 'rate_limit_exceeded',
        message: 'Rate limit reached for gpt-realtime.',
      },
    });
  });

  it('an error before the response started refuses it', () => {
    expect(realtimeReplyOf(refused, 'gpt-realtime')).toMatchObject({
      ok: false,
      error: { status: 400, type: 'invalid_request_error', param: 'session.audio.output.voice' },
    });
  });

  it('events that end before response.done are no whole reply: what the deltas built, incomplete', () => {
    const cut = audio.slice(0, 6);
    expect(realtimeReplyOf(cut, 'gpt-realtime')).toMatchObject({
      ok: true,
      complete: false,
      reply: { content: 'Order 7 has shipped.' },
    });
    expect(realtimeReplyOf(toolCall.slice(0, 4), 'gpt-realtime')).toMatchObject({
      complete: false,
      reply: { toolCalls: [{ name: 'lookup_order', arguments: '{"id":7}' }] },
    });
  });

  it('a cancelled response is incomplete; one cut at max_output_tokens finishes for length', () => {
    const done = (status: string, reason?: string) => [
      {
        type: 'response.done',
        response: { status, status_details: { reason }, output: audio.at(-1)?.response?.output },
      },
    ];
    expect(realtimeReplyOf(done('cancelled', 'turn_detected'), 'm')).toMatchObject({ complete: false });
    expect(realtimeReplyOf(done('incomplete', 'max_output_tokens'), 'm')).toMatchObject({
      complete: true,
      reply: { finishReason: 'length' },
    });
  });
});

/** A provider that answers each client event with the events `answer` gives; `sent` keeps what it got. */
function provider(answer: (event: Obj) => Obj[]) {
  const sent: Obj[] = [];
  const opened: UpstreamSocketRequest[] = [];
  const connect = (request: UpstreamSocketRequest) => {
    opened.push(request);
    const listeners: Record<string, Array<(e: any) => void>> = {};
    const emit = (type: string, event: unknown) => {
      for (const l of listeners[type] ?? []) l(event);
    };
    const socket = {
      readyState: 0,
      binaryType: 'blob',
      addEventListener: (type: string, l: (e: any) => void) => {
        listeners[type] ??= [];
        listeners[type].push(l);
      },
      send(data: string) {
        const event = JSON.parse(data);
        sent.push(event);
        queueMicrotask(() => {
          for (const out of answer(event)) emit('message', { data: JSON.stringify(out) });
        });
      },
      close() {
        socket.readyState = 3;
        emit('close', { code: 1000, reason: '' });
      },
    };
    setTimeout(() => {
      socket.readyState = 1;
      emit('open', {});
      emit('message', { data: JSON.stringify({ type: 'session.created', session: {} }) });
    });
    return socket as never;
  };
  return { sent, opened, connect };
}

/** A user message item of the client's conversation, as the Realtime API lists it. */
const userItem = (content: Obj[], id = 'item_1') => ({ id, type: 'message', role: 'user', content });

const opening = (protocols: string[] = []): SocketOpening => ({
  url: new URL('wss://api.openai.com/v1/realtime?model=gpt-realtime'),
  path: '/realtime',
  header: () => null,
  headers: () =>
    new Headers({ authorization: 'Bearer sk-live-key', 'sec-websocket-key': 'abc', host: 'api.openai.com' }),
  protocols,
});

const conversation = { model: 'gpt-realtime' } as Conversation;
const signal = () => new AbortController().signal;

describe('the Realtime relay', () => {
  const answer = (event: Obj): Obj[] => {
    if (event.type === 'session.update') return [{ type: 'session.updated', session: event.session }];
    if (event.type === 'conversation.item.create')
      return [{ type: 'conversation.item.added', item: event.item }];
    if (event.type === 'response.create') return toolCall;
    return [];
  };

  it('opens one provider socket with the client credentials, mirrors the session, sends only new items', async () => {
    const upstream = provider(answer);
    const relay = new RealtimeRelay(
      opening(['realtime', 'openai-insecure-api-key.sk-browser']),
      upstream.connect,
    );
    expect(relay.keys).toEqual(['sk-browser']);
    const tools = [{ type: 'function', name: 'lookup_order' }];
    const user = userItem([{ type: 'input_text', text: 'Where is order 7?' }]);
    const first = await relay.turn(
      {
        instructions: 'Look orders up.',
        tools,
        tool_choice: 'auto',
        output_modalities: ['audio'],
        input: [user],
      },
      conversation,
      signal(),
    );
    expect(first).toMatchObject({ ok: true, reply: { toolCalls: [{ id: 'call_8fK2x' }] } });
    const call = {
      id: 'item_2',
      type: 'function_call',
      call_id: 'call_8fK2x',
      name: 'lookup_order',
      arguments: '{"id":7}',
    };
    const output = {
      id: 'item_3',
      type: 'function_call_output',
      call_id: 'call_8fK2x',
      output: '{"status":"shipped"}',
    };
    await relay.turn(
      {
        instructions: 'Look orders up.',
        tools,
        tool_choice: 'auto',
        output_modalities: ['audio'],
        input: [user, call, output],
      },
      conversation,
      signal(),
    );
    relay.close();
    expect(upstream.opened).toEqual([
      {
        url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
        headers: [['authorization', 'Bearer sk-live-key']],
        protocols: ['realtime', 'openai-insecure-api-key.sk-browser'],
      },
    ]);
    // The settings once (unchanged at the second turn); the provider's own call is not sent back to it.
    expect(upstream.sent.map((e) => [e.type, e.item?.type ?? e.session?.instructions ?? null])).toEqual([
      ['session.update', 'Look orders up.'],
      ['conversation.item.create', 'message'],
      ['response.create', null],
      ['conversation.item.create', 'function_call_output'],
      ['response.create', null],
    ]);
    expect(upstream.sent[1].item).toEqual({ type: 'message', role: 'user', content: user.content });
  });

  it('an item the provider refuses is the turn error; its response is read to its end, and the next turn gets its own', async () => {
    let responses = 0;
    const upstream = provider((event) => {
      if (event.type === 'conversation.item.create' && event.item.role === 'user')
        return [
          {
            type: 'error',
            error: { type: 'invalid_request_error', message: 'Invalid item.', event_id: event.event_id },
          },
        ];
      if (event.type === 'response.create') {
        responses += 1;
        const said = responses === 1 ? 'An answer without the item.' : 'The second answer.';
        return [
          { type: 'response.created', response: { id: `resp_${responses}` } },
          {
            type: 'response.done',
            response: {
              id: `resp_${responses}`,
              status: 'completed',
              output: [
                { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: said }] },
              ],
            },
          },
        ];
      }
      return answer(event);
    });
    const relay = new RealtimeRelay(opening(), upstream.connect);
    const user = userItem([{ type: 'input_text', text: 'Hi' }]);
    const first = await relay.turn({ input: [user] }, conversation, signal());
    expect(first).toMatchObject({
      ok: false,
      error: { type: 'invalid_request_error', message: 'Invalid item.' },
    });
    const second = await relay.turn({ input: [user] }, conversation, signal());
    expect(second).toMatchObject({ ok: true, reply: { content: 'The second answer.' } });
  });

  it('a cancel that reaches a response already done cuts nothing: its refusal is not the next turn', async () => {
    const cut = new AbortController();
    const upstream = provider((event) => {
      // The client cuts the answer as it arrives whole: the cancel goes up behind it.
      if (event.type === 'response.create') queueMicrotask(() => cut.abort());
      if (event.type !== 'response.cancel') return answer(event);
      const error = {
        type: 'invalid_request_error',
        code: 'response_cancel_not_active',
        message: 'Cancellation failed: no active response found',
        event_id: event.event_id,
      };
      return [{ type: 'error', error }];
    });
    const relay = new RealtimeRelay(opening(), upstream.connect);
    const first = await relay.turn({ input: [] }, conversation, cut.signal);
    expect(first).toMatchObject({ ok: true, complete: true });
    expect(upstream.sent.map((e) => e.type)).toContain('response.cancel');
    const next = await relay.turn({ input: [] }, conversation, signal());
    expect(next).toMatchObject({ ok: true, reply: { toolCalls: [{ id: 'call_8fK2x' }] } });
  });

  it("a provider socket that closes before the response began fails the turn naming the close; the client's own close does not", async () => {
    const upstream = provider((event) => (event.type === 'response.create' ? [] : answer(event)));
    const relay = new RealtimeRelay(opening(), (request) => {
      const socket = upstream.connect(request) as unknown as { send(d: string): void; close(): void };
      const send = socket.send.bind(socket);
      socket.send = (data) => {
        send(data);
        if (JSON.parse(data).type === 'response.create') setTimeout(() => socket.close());
      };
      return socket as never;
    });
    await expect(relay.turn({ input: [] }, conversation, signal())).rejects.toThrow(
      "the provider's socket closed (1000)",
    );
    const quiet = new RealtimeRelay(
      opening(),
      provider((event) => (event.type === 'response.create' ? [] : answer(event))).connect,
    );
    const turn = quiet.turn({ input: [] }, conversation, signal());
    setTimeout(() => quiet.close(), 20);
    await expect(turn).resolves.toMatchObject({ ok: true, complete: false });
  });

  it('changed settings are mirrored again; a refused session.update is the turn error', async () => {
    let refuse = false;
    const upstream = provider((event) =>
      event.type === 'session.update' && refuse ? refused : answer(event),
    );
    const relay = new RealtimeRelay(opening(), upstream.connect);
    await relay.turn({ instructions: 'A', input: [] }, conversation, signal());
    refuse = true;
    const second = await relay.turn({ instructions: 'B', input: [] }, conversation, signal());
    expect(second).toMatchObject({ ok: false, error: { type: 'invalid_request_error' } });
    expect(upstream.sent.filter((e) => e.type === 'session.update')).toHaveLength(2);
  });

  it('a history the fixtures answered (record-missing) is sent: their calls and spoken answers, as items the API takes', async () => {
    const upstream = provider(answer);
    const relay = new RealtimeRelay(opening(), upstream.connect);
    const input = [
      userItem([{ type: 'input_text', text: 'Hi' }]),
      {
        id: 'item_2',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_fx',
        name: 'greet',
        arguments: '{}',
      },
      { id: 'item_3', type: 'function_call_output', call_id: 'call_fx', output: 'ok' },
      {
        id: 'item_4',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_audio', transcript: 'Hello there.' }],
      },
    ];
    await relay.turn({ input }, conversation, signal());
    expect(upstream.sent.filter((e) => e.type === 'conversation.item.create').map((e) => e.item)).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      { type: 'function_call', call_id: 'call_fx', name: 'greet', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_fx', output: 'ok' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there.' }] },
    ]);
  });

  it('a spoken turn nobody heard (no transcript from the provider or a fixture) is not sent: refused, saying why', async () => {
    const relay = new RealtimeRelay(opening(), provider(answer).connect);
    const spoken = userItem([{ type: 'input_audio', transcript: null }]);
    await expect(relay.turn({ input: [spoken] }, conversation, signal())).rejects.toMatchObject({
      code: 'RECORD_UNSUPPORTED',
      message: expect.stringContaining('no words to send'),
    });
  });

  it('a spoken turn a fixture heard (record-missing) goes to the provider as its words', async () => {
    const upstream = provider(answer);
    const relay = new RealtimeRelay(opening(), upstream.connect);
    const spoken = userItem([{ type: 'input_audio', transcript: 'Where is order 7?' }]);
    await relay.turn({ input: [spoken] }, conversation, signal());
    expect(upstream.sent.find((e) => e.type === 'conversation.item.create')?.item).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'Where is order 7?' }],
    });
  });
});

describe('the Realtime relay hears a spoken turn', () => {
  /** A provider that transcribes what was committed by its length, or (deaf) fails to. */
  const hearing =
    (deaf = false) =>
    (event: Obj): Obj[] => {
      if (event.type === 'session.update') return [{ type: 'session.updated', session: event.session }];
      if (event.type === 'input_audio_buffer.commit')
        return [
          { type: 'input_audio_buffer.committed', item_id: 'item_up', previous_item_id: null },
          { type: 'conversation.item.added', item: { id: 'item_up' } },
          deaf
            ? {
                type: 'conversation.item.input_audio_transcription.failed',
                item_id: 'item_up',
                error: { message: 'no speech' },
              }
            : {
                type: 'conversation.item.input_audio_transcription.completed',
                item_id: 'item_up',
                transcript: ' Where is order 7? ',
              },
        ];
      if (event.type === 'response.create') return toolCall;
      return [];
    };
  const speech = {
    chunks: ['AAAA', 'BBBB'],
    digest: 'sha256:x',
    format: { type: 'audio/pcm', rate: 24000 },
    id: 'item_9',
  };

  it('sends the audio as appended, committed, with transcription asked for; the transcript is the turn, and the item is not sent again', async () => {
    const upstream = provider(hearing());
    const relay = new RealtimeRelay(opening(), upstream.connect);
    await expect(relay.hear(speech)).resolves.toBe('Where is order 7?');
    expect(upstream.sent).toEqual([
      {
        type: 'session.update',
        session: {
          type: 'realtime',
          audio: {
            input: {
              format: { type: 'audio/pcm', rate: 24000 },
              transcription: { model: 'gpt-4o-mini-transcribe' },
              turn_detection: null,
            },
          },
        },
      },
      { type: 'input_audio_buffer.append', audio: 'AAAA' },
      { type: 'input_audio_buffer.append', audio: 'BBBB' },
      { type: 'input_audio_buffer.commit' },
    ]);
    const item = {
      id: 'item_9',
      type: 'message',
      role: 'user',
      content: [{ type: 'input_audio', transcript: 'Where is order 7?' }],
    };
    const result = await relay.turn({ input: [item] }, conversation, signal());
    expect(result).toMatchObject({ ok: true, reply: { toolCalls: [{ name: 'lookup_order' }] } });
    expect(upstream.sent.filter((e) => e.type === 'conversation.item.create')).toEqual([]);
  });

  it("mirrors the client's own transcription setting", async () => {
    const upstream = provider(hearing());
    const relay = new RealtimeRelay(opening(), upstream.connect);
    await relay.hear({ ...speech, transcription: { model: 'gpt-4o-transcribe', language: 'en' } });
    expect(upstream.sent[0].session.audio.input.transcription).toEqual({
      model: 'gpt-4o-transcribe',
      language: 'en',
    });
  });

  it('no transcript from the provider is RECORD_TRANSCRIPT_MISSING, naming the setting to turn on', async () => {
    const relay = new RealtimeRelay(opening(), provider(hearing(true)).connect);
    await expect(relay.hear(speech)).rejects.toMatchObject({
      code: 'RECORD_TRANSCRIPT_MISSING',
      message: expect.stringContaining('session.audio.input.transcription'),
    });
  });

  it('a spoken turn that starts while a cut response is still read waits for it: each reads its own events', async () => {
    // A barge-in: the client commits its audio while the relay still reads the response it cancelled.
    const upstream = provider(hearing());
    const relay = new RealtimeRelay(opening(), upstream.connect);
    const user = userItem([{ type: 'input_text', text: 'Hi' }]);
    const cut = new AbortController();
    const turn = relay.turn({ input: [user] }, conversation, cut.signal);
    const heard = relay.hear(speech);
    cut.abort();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve('still waiting after 2 s'), 2000);
    });
    const both = await Promise.race([Promise.all([turn, heard]), late]);
    clearTimeout(timer);
    expect(both).toEqual([
      expect.objectContaining({
        ok: true,
        reply: expect.objectContaining({ toolCalls: [expect.anything()] }),
      }),
      'Where is order 7?',
    ]);
    // The spoken turn went up after the response's events were read.
    const types = upstream.sent.map((e) => e.type);
    expect(types.indexOf('input_audio_buffer.commit')).toBeGreaterThan(types.indexOf('response.create'));
  });
});
