/**
 * The Realtime session machine (src/sockets/openai-realtime/), driven through a fake SocketPeer
 * with the file's real model behind it: what the client sends, what the API answers, and what
 * the run keeps as evidence.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { secretsInUse } from '../../../../../src/files/secrets';
import { getRuntime } from '../../../../../src/sandbox/runtime';
import { MS_PER_CHAR, speak } from '../../../../../src/sockets/openai-realtime/audio';
import { openaiRealtime } from '../../../../../src/sockets/openai-realtime/index';
import type { SocketConnection } from '../../../../../src/sockets/protocol';

type Event = Record<string, any> & { type: string };

/** A client of one session: what it sent, what came back, and how the connection ended. */
class FakeClient {
  readonly received: Event[] = [];
  dropped = false;
  closedWith: number | undefined;
  readonly connection: SocketConnection;
  private waiters: Array<() => void> = [];

  constructor(url = 'wss://api.openai.com/v1/realtime?model=gpt-realtime') {
    const services = getRuntime().requests.socketServices({
      protocol: 'openai.realtime',
      provider: 'openai',
      url,
      path: '/realtime',
      toolCallIdPrefix: 'call_',
    });
    this.connection = openaiRealtime.open(
      {
        url: new URL(url),
        path: '/realtime',
        header: () => null,
        headers: () => new Headers(),
        protocols: [],
      },
      {
        send: (data) => {
          this.received.push(JSON.parse(String(data)));
          for (const w of this.waiters.splice(0)) w();
        },
        close: (code) => {
          this.closedWith = code;
        },
        drop: () => {
          this.dropped = true;
          for (const w of this.waiters.splice(0)) w();
        },
      },
      services,
    );
  }

  send(event: Record<string, unknown>): void {
    this.connection.message(JSON.stringify(event));
  }

  types(): string[] {
    return this.received.map((e) => e.type);
  }

  of(type: string): Event[] {
    return this.received.filter((e) => e.type === type);
  }

  /** Resolves once an event of `type` (the `count`th) has arrived, or the connection dropped. */
  async until(type: string, count = 1): Promise<Event | undefined> {
    while (this.of(type).length < count && !this.dropped)
      await new Promise<void>((r) => this.waiters.push(r));
    return this.of(type)[count - 1];
  }

  say(text: string): void {
    this.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    });
  }
}

const failures = () => getRuntime().drainFailures();
const SESSION = {
  type: 'realtime',
  output_modalities: ['audio'],
  instructions: 'You are a shop assistant.',
  audio: { input: { turn_detection: null }, output: { voice: 'marin' } },
  tools: [
    {
      type: 'function',
      name: 'lookup_order',
      description: 'Finds an order',
      parameters: { type: 'object', properties: { id: { type: 'number' } } },
    },
  ],
};

describe('a Realtime session', () => {
  it('opens with session.created and applies a valid session.update', () => {
    const client = new FakeClient();
    expect(client.types()).toEqual(['session.created']);
    expect(client.received[0].session).toMatchObject({
      type: 'realtime',
      model: 'gpt-realtime',
      output_modalities: ['audio'],
      audio: { output: { format: { type: 'audio/pcm', rate: 24000 } } },
    });
    client.send({ type: 'session.update', session: SESSION });
    const updated = client.of('session.updated')[0];
    expect(updated.session.audio.output.voice).toBe('marin');
    expect(updated.session.tools[0].name).toBe('lookup_order');
    expect(failures()).toEqual([]);
  });

  it('notes the key a client sends, in a header or a subprotocol, for scrubbing', () => {
    const services = getRuntime().requests.socketServices({
      protocol: 'openai.realtime',
      provider: 'openai',
      url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
      path: '/realtime',
    });
    const peer = { send: () => undefined, close: () => undefined, drop: () => undefined };
    openaiRealtime.open(
      {
        url: new URL('wss://api.openai.com/v1/realtime?model=gpt-realtime'),
        path: '/realtime',
        header: () => null,
        headers: () => new Headers({ authorization: 'Bearer sk-header-key-0123456789abcdef' }),
        protocols: ['realtime', 'openai-insecure-api-key.sk-subprotocol-key-0123456789'],
      },
      peer,
      services,
    );
    expect(secretsInUse([], {})).toEqual(
      expect.arrayContaining(['sk-header-key-0123456789abcdef', 'sk-subprotocol-key-0123456789']),
    );
    expect(openaiRealtime.subprotocol?.(['realtime', 'openai-insecure-api-key.x'])).toBe('realtime');
  });

  it('refuses a socket without a model, and names what is not served (transcription sessions)', () => {
    const client = new FakeClient('wss://api.openai.com/v1/realtime?intent=transcription');
    expect(client.types()).toEqual(['error']);
    expect(client.received[0].error).toMatchObject({ code: 'missing_required_parameter', param: 'model' });
    expect(client.closedWith).toBe(1008);
    const [failure] = failures();
    expect(failure.code).toBe('CONTRACT_BREACH');
    expect(failure.message).toContain('transcription session');
  });

  it.each([
    [
      'a beta-shaped session (modalities, voice)',
      { modalities: ['text', 'audio'], voice: 'alloy' },
      'session.type',
    ],
    ['a beta field beside type', { type: 'realtime', modalities: ['text'] }, 'session.modalities'],
    [
      'text and audio together',
      { type: 'realtime', output_modalities: ['text', 'audio'] },
      'session.output_modalities',
    ],
    [
      'PCM at 16 kHz',
      { type: 'realtime', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
      'session.audio.input.format.rate',
    ],
    ['a tool without a name', { type: 'realtime', tools: [{ type: 'function' }] }, 'session.tools[0].name'],
    [
      'a tool_choice naming no tool',
      { type: 'realtime', tool_choice: { type: 'function', name: 'nope' } },
      'session.tool_choice.name',
    ],
    [
      'max_output_tokens above 4096',
      { type: 'realtime', max_output_tokens: 5000 },
      'session.max_output_tokens',
    ],
  ])('refuses %s with the API error event, and fails the test', (_name, session, param) => {
    const client = new FakeClient();
    client.send({ type: 'session.update', event_id: 'evt_client_1', session });
    const [error] = client.of('error');
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param, event_id: 'evt_client_1' });
    expect(client.of('session.updated')).toEqual([]);
    const [failure, ...more] = failures();
    expect(more).toEqual([]);
    expect(failure.code).toBe('CONTRACT_BREACH');
    expect(failure.message).toContain(param);
  });

  it('refuses changing the voice once the assistant has spoken', async () => {
    understudy.model.use(script().user('hi').replies('Hello there.'));
    const client = new FakeClient();
    client.send({ type: 'session.update', session: SESSION });
    client.say('hi');
    client.send({ type: 'response.create' });
    await client.until('response.done');
    client.send({
      type: 'session.update',
      session: { type: 'realtime', audio: { output: { voice: 'cedar' } } },
    });
    expect(client.of('error')[0].error.code).toBe('cannot_update_voice');
    expect(failures().map((f) => f.code)).toEqual(['CONTRACT_BREACH']);
  });

  it('answers a text turn with audio, its transcript alongside, and response.done with usage', async () => {
    understudy.model.use(script().user('hi').replies('Hello there, how can I help?'));
    const client = new FakeClient();
    client.send({ type: 'session.update', session: SESSION });
    const run = await understudy.run(async () => {
      client.say('hi');
      client.send({ type: 'response.create' });
      return client.until('response.done');
    });
    const from = client.types().indexOf('response.created');
    expect(client.types().slice(from)).toEqual([
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
      'response.content_part.added',
      'response.output_audio.delta',
      'response.output_audio_transcript.delta',
      'response.output_audio.delta',
      'response.output_audio_transcript.delta',
      'response.output_audio.done',
      'response.output_audio_transcript.done',
      'response.content_part.done',
      'response.output_item.done',
      'conversation.item.done',
      'response.done',
      'rate_limits.updated',
    ]);
    const transcript = client.of('response.output_audio_transcript.delta').map((e) => e.delta);
    expect(transcript.join('')).toBe('Hello there, how can I help?');
    // The audio is the text's, PCM16 at 24 kHz: the same text always sounds the same.
    const audio = Buffer.concat(
      client.of('response.output_audio.delta').map((e) => Buffer.from(e.delta, 'base64')),
    );
    expect(
      audio.equals(Buffer.from(speak('Hello there, how can I help?', { type: 'audio/pcm', rate: 24000 }))),
    ).toBe(true);
    expect(audio.length).toBe(('Hello there, how can I help?'.length * MS_PER_CHAR * 24000 * 2) / 1000);
    const done = client.of('response.done')[0].response;
    expect(done.status).toBe('completed');
    expect(done.output[0].content).toEqual([
      { type: 'output_audio', transcript: 'Hello there, how can I help?' },
    ]);
    expect(done.usage.total_tokens).toBeGreaterThan(0);
    expect(run.finalMessage).toBe('Hello there, how can I help?');
    expect(run.modelCalls[0].request).toMatchObject({ instructions: 'You are a shop assistant.' });
    expect(failures()).toEqual([]);
  });

  it('answers with text when the session asks for text', async () => {
    understudy.model.use(script().user('hi').replies('Hi!'));
    const client = new FakeClient();
    client.send({ type: 'session.update', session: { ...SESSION, output_modalities: ['text'] } });
    client.say('hi');
    client.send({ type: 'response.create' });
    await client.until('response.done');
    expect(client.of('response.output_text.delta').map((e) => e.delta)).toEqual(['Hi!']);
    expect(client.of('response.output_audio.delta')).toEqual([]);
    expect(failures()).toEqual([]);
  });

  it('runs a function call and its function_call_output round trip into the run', async () => {
    understudy.model.use(
      script().user('where is order 7').callsTool('lookup_order', { id: 7 }).replies('Order 7 has shipped.'),
    );
    const client = new FakeClient();
    client.send({ type: 'session.update', session: SESSION });
    const run = await understudy.run(async () => {
      client.say('where is order 7');
      client.send({ type: 'response.create' });
      const args = await client.until('response.function_call_arguments.done');
      await client.until('response.done');
      client.send({
        type: 'conversation.item.create',
        item: {
          type: 'function_call_output',
          call_id: args?.call_id,
          output: JSON.stringify({ status: 'shipped' }),
        },
      });
      client.send({ type: 'response.create' });
      await client.until('response.done', 2);
    });
    const call = client.of('response.function_call_arguments.done')[0];
    expect(call).toMatchObject({ name: 'lookup_order', arguments: '{"id":7}' });
    expect(run).toHaveCalledTool('lookup_order', { id: 7 });
    expect(run.toolCalls[0].result).toEqual({ status: 'shipped' });
    expect(run.finalMessage).toBe('Order 7 has shipped.');
    expect(run.terminalState).toBe('succeeded');
    expect(failures()).toEqual([]);
  });

  it('a turn no fixture answers: an error event, a failed response, and the test fails', async () => {
    understudy.model.use(script().user('hi').replies('Hello'));
    const client = new FakeClient();
    client.say('goodbye');
    client.send({ type: 'response.create', event_id: 'evt_9' });
    await client.until('response.done');
    expect(client.of('error')[0].error.event_id).toBe('evt_9');
    expect(client.of('response.done')[0].response.status).toBe('failed');
    expect(failures().map((f) => f.code)).toEqual(['MODEL_UNMATCHED']);
  });

  it('a rate-limit fixture sends rate_limits.updated with none left, then the error', async () => {
    understudy.model.use(
      script().user('hi').fails({ status: 429, type: 'rate_limit_exceeded', message: 'Rate limit reached' }),
    );
    const client = new FakeClient();
    client.say('hi');
    client.send({ type: 'response.create' });
    await client.until('response.done');
    const limits = client.of('rate_limits.updated')[0].rate_limits;
    expect(limits.find((l: any) => l.name === 'tokens').remaining).toBe(0);
    expect(client.of('error')[0].error).toMatchObject({
      type: 'rate_limit_exceeded',
      message: 'Rate limit reached',
    });
    expect(failures()).toEqual([]);
  });

  it('a fixture that cuts the response drops the socket mid-response; the run keeps what arrived', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'hi' },
        response: { content: 'A long answer, cut short.' },
        chunkSize: 5,
        truncateAfterChunks: 6,
      },
    ]);
    const client = new FakeClient();
    const run = await understudy.run(async () => {
      client.say('hi');
      client.send({ type: 'response.create' });
      await client.until('response.done');
    });
    expect(client.dropped).toBe(true);
    expect(client.of('response.done')).toEqual([]);
    const [call] = run.modelCalls;
    expect(call.cut?.reason).toBe('truncated');
    expect(call.response?.content).toBe('A lon');
    expect(run.finalMessage).toBeUndefined();
    expect(run.terminalState).toBe('failed');
  });

  it('response.cancel ends the response where it stands (status cancelled), and the call is cut', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'hi' },
        response: { content: 'One two three four five six.' },
        chunkSize: 4,
        chunkDelay: 5,
      },
    ]);
    const client = new FakeClient();
    const run = await understudy.run(async () => {
      client.say('hi');
      client.send({ type: 'response.create' });
      await client.until('response.output_audio_transcript.delta', 2);
      client.send({ type: 'response.cancel' });
      await client.until('response.done');
    });
    const done = client.of('response.done')[0].response;
    expect(done.status).toBe('cancelled');
    expect(done.status_details).toEqual({ type: 'cancelled', reason: 'client_cancelled' });
    expect(run.modelCalls[0].cut?.reason).toBe('aborted');
    expect(run.modelCalls[0].response?.content).toBe('One two ');
    // Nothing more after the cancel.
    await new Promise((r) => setTimeout(r, 30));
    expect(client.types().at(-1)).toBe('response.done');
    client.send({ type: 'response.cancel', event_id: 'again' });
    expect(client.of('error')[0].error.code).toBe('response_cancel_not_active');
  });

  it('conversation.item.truncate keeps the transcript the user heard, and the call says so', async () => {
    understudy.model.use(script().user('hi').replies('Hello there, how can I help?'));
    const client = new FakeClient();
    const run = await understudy.run(async () => {
      client.say('hi');
      client.send({ type: 'response.create' });
      await client.until('response.done');
    });
    const item = client.of('response.output_item.done')[0].item;
    // The user heard 6 characters' worth of audio.
    client.send({
      type: 'conversation.item.truncate',
      item_id: item.id,
      content_index: 0,
      audio_end_ms: 6 * MS_PER_CHAR,
    });
    expect(client.of('conversation.item.truncated')[0]).toMatchObject({
      item_id: item.id,
      audio_end_ms: 6 * MS_PER_CHAR,
    });
    client.send({ type: 'conversation.item.retrieve', item_id: item.id });
    expect(client.of('conversation.item.retrieved')[0].item.content[0].transcript).toBe('Hello ');
    expect(run.modelCalls[0].cut?.reason).toBe('aborted');
    expect(run.modelCalls[0].response?.content).toBe('Hello ');
    expect(run.modelCalls[0].whole?.content).toBe('Hello there, how can I help?');
    // Past the end of the audio: the API's error.
    client.send({
      type: 'conversation.item.truncate',
      item_id: item.id,
      content_index: 0,
      audio_end_ms: 60_000,
    });
    expect(client.of('error')[0].error.param).toBe('audio_end_ms');
    failures();
  });

  it('spoken input: server VAD turn events, the transcript from the fixture, then the response', async () => {
    understudy.model.use(script().user('what time do you open').replies('We open at nine.'));
    const client = new FakeClient();
    client.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        audio: {
          input: {
            transcription: { model: 'gpt-4o-mini-transcribe' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 200 },
          },
        },
      },
    });
    const speech = Buffer.from(speak('what time', { type: 'audio/pcm', rate: 24000 })).toString('base64');
    const silence = Buffer.alloc(24000 * 2 * 0.3).toString('base64');
    client.send({ type: 'input_audio_buffer.append', audio: speech });
    client.send({ type: 'input_audio_buffer.append', audio: silence });
    await client.until('response.done');
    const types = client.types();
    const order = [
      'input_audio_buffer.speech_started',
      'input_audio_buffer.speech_stopped',
      'input_audio_buffer.committed',
      'conversation.item.added',
      'conversation.item.done',
      'conversation.item.input_audio_transcription.completed',
      'response.created',
      'response.done',
    ].map((t) => types.indexOf(t));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(client.of('conversation.item.input_audio_transcription.completed')[0].transcript).toBe(
      'what time do you open',
    );
    expect(client.of('response.output_audio_transcript.done')[0].transcript).toBe('We open at nine.');
    expect(failures()).toEqual([]);
  });

  it("an input_audio item without a transcript is heard as the fixture's user turn", async () => {
    understudy.model.use(script().user('Book a table for two').replies('Booked.'));
    const client = new FakeClient();
    const audio = Buffer.from(speak('book', { type: 'audio/pcm', rate: 24000 })).toString('base64');
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_audio', audio }] },
    });
    expect(client.of('conversation.item.done')[0].item.content[0].transcript).toBe('Book a table for two');
    client.send({ type: 'response.create' });
    await client.until('response.done');
    expect(client.of('response.output_audio_transcript.done')[0].transcript).toBe('Booked.');
    expect(failures()).toEqual([]);
  });

  it('barge-in: speech during a response cancels it (turn_detected), and the spoken turn is answered next', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'hi' },
        response: { content: 'A long greeting that goes on.' },
        chunkSize: 4,
        chunkDelay: 5,
      },
      { match: { userMessage: 'wait, stop' }, response: { content: 'Stopped.' } },
    ]);
    const client = new FakeClient();
    const run = await understudy.run(async () => {
      client.say('hi');
      client.send({ type: 'response.create' });
      await client.until('response.output_audio.delta', 2);
      const pcm = { type: 'audio/pcm', rate: 24000 } as const;
      client.send({
        type: 'input_audio_buffer.append',
        audio: Buffer.from(speak('wait', pcm)).toString('base64'),
      });
      client.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(24000).toString('base64') });
      await client.until('response.done', 2);
    });
    expect(client.of('input_audio_buffer.speech_started')).toHaveLength(1);
    const [first, second] = client.of('response.done').map((e) => e.response);
    expect(first.status_details).toEqual({ type: 'cancelled', reason: 'turn_detected' });
    expect(second.status).toBe('completed');
    expect(second.output[0].content[0].transcript).toBe('Stopped.');
    expect(run.modelCalls[0].cut?.reason).toBe('aborted');
    expect(run.modelCalls[1].conversation.messages.at(-1)).toEqual({ role: 'user', text: 'wait, stop' });
    expect(run.finalMessage).toBe('Stopped.');
    expect(failures()).toEqual([]);
  });

  it('refuses a response while one is in progress, an unknown event, and beta item content', async () => {
    understudy.model.use([
      { match: { userMessage: 'hi' }, response: { content: 'Hello there.' }, chunkDelay: 5 },
    ]);
    const client = new FakeClient();
    client.say('hi');
    client.send({ type: 'response.create' });
    client.send({ type: 'response.create', event_id: 'second' });
    expect(client.of('error')[0].error.code).toBe('conversation_already_has_active_response');
    client.send({ type: 'response.audio.delta' });
    expect(client.of('error')[1].error.param).toBe('type');
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'beta' }] },
    });
    expect(client.of('error')[2].error.param).toBe('item.content[0].type');
    await client.until('response.done');
    expect(failures().map((f) => f.code)).toEqual(['CONTRACT_BREACH', 'CONTRACT_BREACH', 'CONTRACT_BREACH']);
  });
});
