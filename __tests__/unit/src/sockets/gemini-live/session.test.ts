import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Conversation, NeutralError, NeutralToolCall } from '../../../../../src/conversation';
import type { StreamShaping } from '../../../../../src/fixtures/types';
import { geminiLive } from '../../../../../src/sockets/gemini-live';
import type { LiveServices } from '../../../../../src/sockets/gemini-live/session';
import { Listener, speak } from '../../../../../src/sockets/gemini-live/speech';
import type { SocketData, SocketOpening, TurnOutcome } from '../../../../../src/sockets/protocol';

const golden = (name: string) => JSON.parse(readFileSync(join(__dirname, 'golden', name), 'utf8'));

const PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent';
const opening: SocketOpening = {
  url: new URL(`wss://generativelanguage.googleapis.com${PATH}?key=test`),
  path: PATH,
  header: () => null,
  headers: () => new Headers(),
  protocols: [],
};

const usage = { inputTokens: 12, outputTokens: 5, totalTokens: 17, cachedInputTokens: 0, reasoningTokens: 0 };
const reply = (
  content: string | null,
  toolCalls: NeutralToolCall[] = [],
  shaping: StreamShaping = {},
): TurnOutcome => ({
  kind: 'reply',
  reply: { content, toolCalls, finishReason: toolCalls.length ? 'tool_calls' : 'stop', usage, model: 'm' },
  shaping,
  cut: () => undefined,
});

const tick = () => new Promise((resolve) => setImmediate(resolve));
const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(done()).toBe(true);
};

/** A session over a fake peer, its model turns answered in order from `outcomes`. */
function session(outcomes: TurnOutcome[], extra: Partial<LiveServices> = {}) {
  const cuts: Array<{ reason: string; reached: string | null | undefined; delivered: number; of: number }> =
    [];
  const frames: SocketData[] = [];
  const conversations: Conversation[] = [];
  const signals: AbortSignal[] = [];
  const breaches: NeutralError[] = [];
  const state = { closed: undefined as { code: number; reason: string } | undefined, dropped: false };
  const services: LiveServices = {
    answer: async (conversation, turn) => {
      conversations.push(structuredClone(conversation));
      signals.push(turn.signal);
      const next = outcomes.shift();
      if (!next) throw new Error('no model turn left');
      if (next.kind !== 'reply') return next;
      return {
        ...next,
        cut: (
          reason: string,
          reached: { content: string | null } | undefined,
          events: { delivered: number; of: number },
        ) => cuts.push({ reason, reached: reached?.content, ...events }),
      };
    },
    refused: (breach) => breaches.push(breach),
    call: async () => undefined,
    heard: () => null,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
    ...extra,
  };
  const connection = geminiLive.open(
    opening,
    {
      send: (data) => frames.push(data),
      close: (code, reason) => {
        state.closed = { code, reason: reason ?? '' };
      },
      drop: () => {
        state.dropped = true;
      },
    },
    services,
  );
  const messages = () =>
    frames.map((f) => {
      const text = typeof f === 'string' ? f : new TextDecoder().decode(f);
      try {
        return JSON.parse(text);
      } catch {
        return { unparsable: text };
      }
    });
  return {
    cuts,
    frames,
    messages,
    conversations,
    signals,
    breaches,
    state,
    send: (message: unknown) => connection.message(JSON.stringify(message)),
    raw: (data: SocketData) => connection.message(data),
    sendBinary: (message: unknown) => connection.message(new TextEncoder().encode(JSON.stringify(message))),
    close: () => connection.closed(1000, ''),
  };
}

const setup = (config: Record<string, unknown> = {}) => ({
  setup: { ...golden('setup-tools.json').setup, ...config },
});
const say = (text: string) => ({
  clientContent: { turns: [{ role: 'user', parts: [{ text }] }], turnComplete: true },
});
const serverContent = (m: any) => m.serverContent ?? {};

describe('Gemini Live: the protocol', () => {
  it('serves BidiGenerateContent on v1beta, v1alpha and the ephemeral-token method, and nothing else', () => {
    expect(geminiLive.handles(PATH)).toBe(true);
    expect(geminiLive.handles(PATH.replace('v1beta', 'v1alpha'))).toBe(true);
    expect(geminiLive.handles(`${PATH.replace('v1beta', 'v1alpha')}Constrained`)).toBe(true);
    expect(geminiLive.handles(`/${PATH.replace('v1beta', 'v1')}`)).toBe(true);
    expect(geminiLive.handles('/v1beta/models/gemini-2.5-flash:generateContent')).toBe(false);
    expect(geminiLive.handles('/ws/google.cloud.aiplatform.v1beta1.LlmBidiService/BidiGenerateContent')).toBe(
      false,
    );
  });
});

describe('Gemini Live: a session', () => {
  it('answers setup with setupComplete, in a binary frame as the API sends it', () => {
    const s = session([]);
    s.send(golden('setup-tools.json'));
    expect(s.frames).toHaveLength(1);
    expect(s.frames[0]).toBeInstanceOf(Uint8Array);
    expect(s.messages()).toEqual([{ setupComplete: {} }]);
  });

  it('reads binary client frames as JSON too', async () => {
    const s = session([reply('Hi.')]);
    s.sendBinary(golden('setup-tools.json'));
    s.sendBinary(say('Hello'));
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    expect(s.conversations[0].messages.at(-1)).toEqual({ role: 'user', text: 'Hello' });
  });

  it('answers a text turn: the model turn, generationComplete, then turnComplete with usage', async () => {
    const s = session([reply('The lights are on.')]);
    s.send(golden('setup-tools.json'));
    s.send(golden('client-content.json'));
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    const [, ...turn] = s.messages();
    const expected = golden('server-text.json');
    expect(turn.map(({ usageMetadata, ...m }) => m)).toEqual(expected);
    expect(turn.at(-1).usageMetadata).toEqual(
      expect.objectContaining({ promptTokenCount: 12, responseTokenCount: 5, totalTokenCount: 17 }),
    );
    const [conversation] = s.conversations;
    expect(conversation).toMatchObject({
      provider: 'gemini',
      protocol: 'gemini.live',
      model: 'gemini-live-2.5-flash-preview',
      messages: [
        { role: 'system', text: 'You are a helpful assistant.' },
        { role: 'user', text: 'Turn on the lights please' },
      ],
    });
    expect(conversation.tools.map((t) => t.name)).toEqual(['turn_on_the_lights', 'turn_off_the_lights']);
  });

  it('waits for turnComplete before the model answers', async () => {
    const s = session([reply('Both heard.')]);
    s.send(setup());
    s.send({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'One' }] }] } });
    await tick();
    expect(s.conversations).toHaveLength(0);
    s.send({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'Two' }] }], turnComplete: true } });
    await until(() => s.conversations.length === 1);
    expect(s.conversations[0].messages.filter((m) => m.role === 'user').map((m) => m.text)).toEqual([
      'One',
      'Two',
    ]);
  });

  it('round-trips a function call: toolCall with its id, toolResponse, then the answer', async () => {
    const s = session([
      reply(null, [{ id: 'function-call-1', name: 'turn_on_the_lights', arguments: '{}' }]),
      reply('The lights are on.'),
    ]);
    s.send(setup());
    s.send(golden('client-content.json'));
    await until(() => s.messages().some((m) => m.toolCall));
    const call = s.messages().find((m) => m.toolCall);
    expect({ toolCall: call.toolCall }).toEqual(golden('tool-call.json'));
    expect(s.messages().some((m) => serverContent(m).turnComplete)).toBe(false);
    s.send(golden('tool-response.json'));
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    const second = s.conversations[1].messages;
    expect(second.slice(-2)).toEqual([
      {
        role: 'assistant',
        text: null,
        toolCalls: [{ id: 'function-call-1', name: 'turn_on_the_lights', arguments: '{}' }],
      },
      { role: 'tool', text: '{"result":"ok"}', toolCallId: 'function-call-1' },
    ]);
  });

  it('gives a call without an id one of its own, and waits for every parallel call to be answered', async () => {
    const s = session([
      reply('On it.', [
        { id: '', name: 'turn_on_the_lights', arguments: '{}', anonymous: true },
        { id: '', name: 'turn_off_the_lights', arguments: '{}', anonymous: true },
      ]),
      reply('Done.'),
    ]);
    s.send(setup());
    s.send(say('Flip them'));
    await until(() => s.messages().some((m) => m.toolCall));
    const ids = s
      .messages()
      .find((m) => m.toolCall)
      .toolCall.functionCalls.map((c: any) => c.id);
    expect(ids).toEqual(['function-call-1', 'function-call-2']);
    s.send({
      toolResponse: { functionResponses: [{ id: ids[0], name: 'turn_on_the_lights', response: {} }] },
    });
    await tick();
    expect(s.conversations).toHaveLength(1);
    s.send({
      toolResponse: { functionResponses: [{ id: ids[1], name: 'turn_off_the_lights', response: {} }] },
    });
    await until(() => s.conversations.length === 2);
    const thread = s.conversations[1].messages;
    expect(thread.find((m) => m.role === 'assistant')?.text).toBe('On it.');
    expect(thread.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(ids);
  });

  it('refuses a function response for a call that is not waiting, naming it, and closes 1007', async () => {
    const s = session([
      reply(null, [{ id: 'function-call-1', name: 'turn_on_the_lights', arguments: '{}' }]),
    ]);
    s.send(setup());
    s.send(say('Lights'));
    await until(() => s.messages().some((m) => m.toolCall));
    s.send({
      toolResponse: { functionResponses: [{ id: 'call-x', name: 'turn_on_the_lights', response: {} }] },
    });
    expect(s.state.closed).toEqual({ code: 1007, reason: 'Request contains an invalid argument.' });
    expect(s.breaches[0]).toMatchObject({
      status: 400,
      param: 'toolResponse.functionResponses[0].id',
      message: expect.stringContaining('turn_on_the_lights (function-call-1)'),
    });
  });
});

describe('Gemini Live: audio', () => {
  it('speaks the reply as PCM16 at 24 kHz whose transcript comes alongside', async () => {
    const text = 'The lights are on in the kitchen now.';
    const s = session([reply(text, [], { chunkSize: 10 })]);
    s.send(setup({ generationConfig: { responseModalities: ['AUDIO'] }, outputAudioTranscription: {} }));
    s.send(say('Lights?'));
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    const audio = s.messages().flatMap((m) => serverContent(m).modelTurn?.parts ?? []);
    expect(audio.every((p: any) => p.inlineData?.mimeType === 'audio/pcm;rate=24000')).toBe(true);
    const heard = audio.map((p: any) => {
      const listener = new Listener();
      return listener.hear(Buffer.from(p.inlineData.data, 'base64'));
    });
    expect(heard.every((h) => h.complete)).toBe(true);
    expect(heard.map((h) => h.text).join('')).toBe(text);
    const transcript = s.messages().map((m) => serverContent(m).outputTranscription?.text ?? '');
    expect(transcript.join('')).toBe(text);
    // Deterministic: the same text is the same audio.
    expect(Buffer.from(speak('same', 24000)).equals(Buffer.from(speak('same', 24000)))).toBe(true);
  });

  it('sends no transcript when outputAudioTranscription is not set', async () => {
    const s = session([reply('Quiet.')]);
    s.send(setup({ generationConfig: { responseModalities: ['AUDIO'] } }));
    s.send(say('Hi'));
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    expect(s.messages().some((m) => serverContent(m).outputTranscription)).toBe(false);
  });

  it('hears spoken input by its transcript once the utterance ends, and transcribes it back', async () => {
    const s = session([reply('It is noon.')]);
    s.send(setup({ inputAudioTranscription: {} }));
    const pcm = Buffer.from(speak('What time is it?', 16000));
    // An odd split checks samples cut across chunks.
    const cuts = [0, 1001, 7777, pcm.length];
    for (let i = 0; i < cuts.length - 1; i++) {
      s.send({
        realtimeInput: {
          audio: {
            data: pcm.subarray(cuts[i], cuts[i + 1]).toString('base64'),
            mimeType: 'audio/pcm;rate=16000',
          },
        },
      });
      if (i < cuts.length - 2) {
        await tick();
        expect(s.conversations).toHaveLength(0);
      }
    }
    await until(() => s.conversations.length === 1);
    expect(s.conversations[0].messages.at(-1)).toEqual({ role: 'user', text: 'What time is it?' });
    expect(s.messages().find((m) => serverContent(m).inputTranscription)).toEqual({
      serverContent: { inputTranscription: { text: 'What time is it?' } },
    });
  });

  it('takes audio it cannot read as speech without words, ended by audioStreamEnd', async () => {
    const s = session([reply('Pardon?')]);
    s.send(setup());
    s.send({
      realtimeInput: {
        audio: { data: Buffer.alloc(3200, 7).toString('base64'), mimeType: 'audio/pcm;rate=16000' },
      },
    });
    await tick();
    expect(s.conversations).toHaveLength(0);
    s.send({ realtimeInput: { audioStreamEnd: true } });
    await until(() => s.conversations.length === 1);
    expect(s.conversations[0].messages.at(-1)).toEqual({ role: 'user', text: null });
  });

  it('hears audio it cannot read as what the fixtures have the user say next', async () => {
    const asked: Conversation[] = [];
    const s = session([reply('It is noon.')], {
      heard: (conversation) => {
        asked.push(conversation);
        return 'What time is it?';
      },
    });
    s.send(setup({ inputAudioTranscription: {} }));
    s.send({ realtimeInput: { audio: { data: Buffer.alloc(3200, 7).toString('base64') } } });
    s.send({ realtimeInput: { audioStreamEnd: true } });
    await until(() => s.conversations.length === 1);
    expect(asked[0].messages.at(-1)).toEqual({ role: 'user', text: null });
    expect(s.conversations[0].messages.at(-1)).toEqual({ role: 'user', text: 'What time is it?' });
    expect(s.messages().find((m) => serverContent(m).inputTranscription)).toEqual({
      serverContent: { inputTranscription: { text: 'What time is it?' } },
    });
  });

  it('marks turns with activityStart and activityEnd when automatic activity detection is off', async () => {
    const s = session([reply('Yes.')]);
    s.send(setup({ realtimeInputConfig: { automaticActivityDetection: { disabled: true } } }));
    s.send({ realtimeInput: { activityStart: {} } });
    s.send({
      realtimeInput: { audio: { data: Buffer.from(speak('Are you there?', 16000)).toString('base64') } },
    });
    await tick();
    expect(s.conversations).toHaveLength(0);
    s.send({ realtimeInput: { activityEnd: {} } });
    await until(() => s.conversations.length === 1);
    expect(s.conversations[0].messages.at(-1)?.text).toBe('Are you there?');
  });

  it('refuses activity markers while automatic activity detection is on', () => {
    const s = session([]);
    s.send(setup());
    s.send({ realtimeInput: { activityStart: {} } });
    expect(s.state.closed).toEqual({
      code: 1007,
      reason: 'Explicit activity control is not supported when automatic activity detection is enabled.',
    });
    expect(s.breaches[0].param).toBe('realtimeInput.activityStart');
  });

  it('answers realtime text as a user turn', async () => {
    const s = session([reply('Hello there.')]);
    s.send(setup());
    s.send({ realtimeInput: { text: 'Hello' } });
    await until(() => s.conversations.length === 1);
    expect(s.conversations[0].messages.at(-1)).toEqual({ role: 'user', text: 'Hello' });
  });
});

describe('Gemini Live: interruption', () => {
  const paced = { chunkSize: 6, chunkDelay: 30 };

  it('cuts the model off when the user speaks: interrupted, turnComplete, and only what was said stays', async () => {
    const s = session([reply('One two three four five six seven.', [], paced), reply('Sure.')]);
    s.send(setup());
    s.send(say('Count'));
    await until(() => s.messages().some((m) => serverContent(m).modelTurn));
    s.send({ realtimeInput: { audio: { data: Buffer.from(speak('Stop', 16000)).toString('base64') } } });
    expect(s.signals[0].aborted).toBe(true);
    const after = s.messages().map((m) => serverContent(m));
    const cut = after.findIndex((m) => m.interrupted);
    expect(cut).toBeGreaterThan(0);
    expect(after[cut + 1]).toEqual({ turnComplete: true });
    await until(() => s.conversations.length === 2);
    const said = s.conversations[1].messages.find((m) => m.role === 'assistant')?.text;
    expect(said).toBe('One tw');
    // The call log keeps what reached the client: one chunk of six, and no turnComplete.
    expect(s.cuts).toEqual([{ reason: 'aborted', reached: 'One tw', delivered: 1, of: 7 }]);
    expect(s.conversations[1].messages.at(-1)).toEqual({ role: 'user', text: 'Stop' });
    // Nothing of the cut turn arrives after it.
    await new Promise((resolve) => setTimeout(resolve, 80));
    const texts = s
      .messages()
      .flatMap((m) => serverContent(m).modelTurn?.parts ?? [])
      .map((p: any) => p.text);
    expect(texts.join('')).toBe('One twSure.');
  });

  it('cancels the function calls waiting when the user cuts in, and drops a late response to them', async () => {
    const s = session([
      reply(null, [{ id: 'function-call-7', name: 'turn_on_the_lights', arguments: '{}' }]),
      reply('Never mind then.'),
    ]);
    s.send(setup());
    s.send(say('Lights'));
    await until(() => s.messages().some((m) => m.toolCall));
    s.send(say('Actually, no'));
    expect(s.messages().find((m) => m.toolCallCancellation)).toEqual({
      toolCallCancellation: { ids: ['function-call-7'] },
    });
    await until(() => s.conversations.length === 2);
    expect(s.conversations[1].messages.some((m) => m.toolCalls?.length)).toBe(false);
    s.send({
      toolResponse: {
        functionResponses: [{ id: 'function-call-7', name: 'turn_on_the_lights', response: {} }],
      },
    });
    expect(s.state.closed).toBeUndefined();
  });

  it('cuts a turn whose answer had not come yet when the user spoke: nothing of it reached the client', async () => {
    let release!: () => void;
    const s = session([reply('Too late.'), reply('Sure.')], {
      answer: async (conversation) => {
        if (conversation.messages.at(-1)?.text === 'First') await new Promise<void>((r) => (release = r));
        return {
          ...reply(conversation.messages.at(-1)?.text === 'First' ? 'Too late.' : 'Sure.'),
          cut: (reason: string, reached: unknown, events: { delivered: number; of: number }) =>
            s.cuts.push({
              reason,
              reached: (reached as { content?: string } | undefined)?.content,
              ...events,
            }),
        } as TurnOutcome;
      },
    });
    s.send(setup());
    s.send(say('First'));
    await tick();
    s.send(say('Second'));
    release();
    await until(() => s.messages().some((m) => serverContent(m).modelTurn));
    await tick();
    expect(s.cuts).toEqual([{ reason: 'aborted', reached: undefined, delivered: 0, of: 1 }]);
    const texts = s
      .messages()
      .flatMap((m) => serverContent(m).modelTurn?.parts ?? [])
      .map((p: any) => p.text);
    expect(texts).toEqual(['Sure.']);
  });

  it('lets the model finish when activityHandling is NO_INTERRUPTION', async () => {
    const s = session([reply('One two three.', [], paced)]);
    s.send(setup({ realtimeInputConfig: { activityHandling: 'NO_INTERRUPTION' } }));
    s.send(say('Count'));
    await until(() => s.messages().some((m) => serverContent(m).modelTurn));
    s.send({ realtimeInput: { audio: { data: Buffer.alloc(100).toString('base64') } } });
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    expect(s.messages().some((m) => serverContent(m).interrupted)).toBe(false);
  });
});

describe('Gemini Live: faults', () => {
  it('drops the socket, with no close frame, when the fixture drops the connection', async () => {
    const s = session([
      reply(null, [{ id: 'function-call-1', name: 'turn_on_the_lights', arguments: '{}' }]),
      { kind: 'drop', error: { status: 0, type: 'connection_dropped', message: 'dropped' } },
    ]);
    s.send(setup());
    s.send(say('Lights'));
    await until(() => s.messages().some((m) => m.toolCall));
    s.send(golden('tool-response.json'));
    await until(() => s.state.dropped);
    expect(s.state.closed).toBeUndefined();
    s.send(say('Hello?'));
    expect(s.conversations).toHaveLength(2);
  });

  it('cuts the reply mid-turn when the fixture disconnects', async () => {
    const s = session([reply('abcdefghijkl', [], { chunkSize: 3, disconnect: true })]);
    s.send(setup());
    s.send(say('Go'));
    await until(() => s.state.dropped);
    const texts = s
      .messages()
      .flatMap((m) => serverContent(m).modelTurn?.parts ?? [])
      .map((p: any) => p.text);
    expect(texts).toEqual(['abc', 'def']);
    expect(s.messages().some((m) => serverContent(m).turnComplete)).toBe(false);
    expect(s.cuts).toEqual([{ reason: 'disconnected', reached: 'abcdef', delivered: 2, of: 5 }]);
  });

  it('drops the socket after the chunks truncateAfterChunks lets through', async () => {
    const s = session([reply('abcdefghijkl', [], { chunkSize: 3, truncateAfterChunks: 1 })]);
    s.send(setup());
    s.send(say('Go'));
    await until(() => s.state.dropped);
    expect(s.cuts).toEqual([{ reason: 'truncated', reached: 'abc', delivered: 1, of: 5 }]);
  });

  it('closes the session as a failed one after part of the reply, for a mid-response error', async () => {
    const s = session([
      Object.assign(reply('abcdefghijkl', [], { chunkSize: 3 }), {
        streamError: { message: 'Internal error encountered.', afterChunks: 3 },
      }),
    ]);
    s.send(setup());
    s.send(say('Go'));
    await until(() => s.state.closed !== undefined);
    expect(s.state.closed).toEqual({ code: 1011, reason: 'Internal error encountered.' });
    expect(s.cuts).toEqual([{ reason: 'stream_error', reached: 'abcdefghi', delivered: 3, of: 5 }]);
    expect(s.messages().some((m) => serverContent(m).turnComplete)).toBe(false);
  });

  it('paces chunks on the file clock when it lends one', async () => {
    const waits: number[] = [];
    const s = session([reply('abcdef', [], { chunkSize: 2, chunkDelay: 5000 })], {
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    s.send(setup());
    s.send(say('Go'));
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    expect(waits).toEqual([5000, 5000]);
  });

  it('sends a frame that is not JSON where the fixture is malformed', async () => {
    const s = session([reply('abcdef', [], { chunkSize: 3, malformed: 1 })]);
    s.send(setup());
    s.send(say('Go'));
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    expect(s.messages()[2]).toHaveProperty('unparsable');
    expect(s.cuts).toEqual([{ reason: 'malformed', reached: 'abc', delivered: 1, of: 3 }]);
  });

  it.each([
    [400, 'INVALID_ARGUMENT', 1007],
    [403, 'PERMISSION_DENIED', 1008],
    [429, 'RESOURCE_EXHAUSTED', 1011],
    [500, 'INTERNAL', 1011],
  ])(
    'ends the session on a %i %s with close code %i and the message as reason',
    async (status, type, code) => {
      const s = session([{ kind: 'error', error: { status, type, message: `Failed: ${type}` } }]);
      s.send(setup());
      s.send(say('Go'));
      await until(() => s.state.closed !== undefined);
      expect(s.state.closed).toEqual({ code, reason: `Failed: ${type}` });
      expect(s.breaches).toEqual([]);
    },
  );

  it('says goAway before it closes for an unavailable service', async () => {
    const s = session([
      { kind: 'error', error: { status: 503, type: 'UNAVAILABLE', message: 'Going away', retryAfter: 5 } },
    ]);
    s.send(setup());
    s.send(say('Go'));
    await until(() => s.state.closed !== undefined);
    expect(s.messages().at(-1)).toEqual({ goAway: { timeLeft: '5s' } });
    expect(s.state.closed).toEqual({ code: 1001, reason: 'Going away' });
  });

  it('cuts a close reason to the 123 bytes a close frame holds', async () => {
    const s = session([
      { kind: 'error', error: { status: 500, type: 'INTERNAL', message: 'é'.repeat(100) } },
    ]);
    s.send(setup());
    s.send(say('Go'));
    await until(() => s.state.closed !== undefined);
    expect(Buffer.byteLength(s.state.closed?.reason ?? '')).toBe(122);
  });

  it('stops a turn the client closed the socket on', async () => {
    const s = session([reply('abcdefghijkl', [], { chunkSize: 3, chunkDelay: 20 })]);
    s.send(setup());
    s.send(say('Go'));
    await until(() => s.messages().some((m) => serverContent(m).modelTurn));
    s.close();
    expect(s.signals[0].aborted).toBe(true);
    expect(s.cuts).toEqual([{ reason: 'aborted', reached: 'abc', delivered: 1, of: 5 }]);
    const count = s.frames.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(s.frames).toHaveLength(count);
  });
});

describe('Gemini Live: setup is checked against the API’s rules', () => {
  const refused = (messages: unknown[]) => {
    const s = session([]);
    for (const m of messages) s.send(m);
    return s;
  };

  it.each([
    ['a message before setup', [say('Hi')], 'clientContent', /first message of a session is setup/],
    ['a second setup', [setup(), setup()], 'setup', /sent once/],
    [
      'two response modalities',
      [setup({ generationConfig: { responseModalities: ['TEXT', 'AUDIO'] } })],
      'setup.generationConfig.responseModalities',
      /one modality/,
    ],
    [
      'an unknown modality',
      [setup({ generationConfig: { responseModalities: ['IMAGE'] } })],
      'setup.generationConfig.responseModalities',
      /TEXT or AUDIO/,
    ],
    [
      'an unknown activityHandling',
      [setup({ realtimeInputConfig: { activityHandling: 'SOMETIMES' } })],
      'setup.realtimeInputConfig.activityHandling',
      /NO_INTERRUPTION/,
    ],
  ])('refuses %s with 1007, naming the field', (_name, messages, at, problem) => {
    const s = refused(messages);
    expect(s.state.closed).toEqual({ code: 1007, reason: 'Request contains an invalid argument.' });
    expect(s.breaches).toHaveLength(1);
    expect(s.breaches[0].param).toBe(at);
    expect(s.breaches[0].message).toMatch(problem);
    expect(s.breaches[0].message).toContain(
      'the API closes the session: 1007 Request contains an invalid argument.',
    );
  });

  it('refuses a field setup does not have, as the API’s JSON parser words it', () => {
    const s = refused([setup({ responseModalities: ['TEXT'] })]);
    expect(s.state.closed).toEqual({
      code: 1007,
      reason: `Invalid JSON payload received. Unknown name "responseModalities" at 'setup': Cannot find field.`,
    });
    expect(s.breaches[0].param).toBe('setup.responseModalities');
  });

  it('refuses TEXT from a native audio model with the API’s reason', () => {
    const s = refused([
      setup({
        model: 'models/gemini-2.5-flash-native-audio-preview-09-2025',
        generationConfig: { responseModalities: ['TEXT'] },
      }),
    ]);
    expect(s.state.closed).toEqual({ code: 1007, reason: 'Cannot extract voices from a non-audio request.' });
  });

  it('refuses a frame that is not JSON', () => {
    const s = session([]);
    s.send(setup());
    s.raw('{"clientContent": ');
    expect(s.state.closed).toEqual({ code: 1007, reason: 'Invalid JSON payload received.' });
  });

  it('reads a bare model name as models/{model}, and keeps a tuned model’s name', async () => {
    const bare = session([reply('Hi.')]);
    bare.send(setup({ model: 'gemini-live-2.5-flash-preview' }));
    bare.send(say('Hello'));
    await until(() => bare.conversations.length === 1);
    expect(bare.conversations[0].model).toBe('gemini-live-2.5-flash-preview');
    const tuned = session([reply('Hi.')]);
    tuned.send(setup({ model: 'tunedModels/my-live-model' }));
    tuned.send(say('Hello'));
    await until(() => tuned.conversations.length === 1);
    expect(tuned.conversations[0].model).toBe('tunedModels/my-live-model');
  });

  it('refuses a setup without a model', () => {
    const s = session([]);
    s.send({ setup: { generationConfig: { responseModalities: ['TEXT'] } } });
    expect(s.state.closed?.code).toBe(1007);
    expect(s.breaches[0].param).toBe('setup.model');
  });

  it('takes snake_case fields as the API does', async () => {
    const s = session([reply('Hi.')]);
    s.send({
      setup: {
        model: 'models/gemini-live-2.5-flash-preview',
        generation_config: { response_modalities: ['TEXT'] },
      },
    });
    s.send({
      client_content: { turns: [{ role: 'user', parts: [{ text: 'Hello' }] }], turn_complete: true },
    });
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    expect(s.breaches).toEqual([]);
    expect(s.messages()[1]).toEqual({ serverContent: { modelTurn: { parts: [{ text: 'Hi.' }] } } });
  });
});

describe("Gemini Live: what a session notes for the trace's turns", () => {
  it('notes the typed turn after the history the client loads, the tool outputs, and a cut-off answer', async () => {
    const notes: unknown[] = [];
    const s = session(
      [
        reply(null, [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' }]),
        reply('It is sunny and warm in Paris today.', [], { chunkSize: 6, chunkDelay: 50 }),
        reply('Stopping.'),
      ],
      {
        note: (note) =>
          notes.push({ ...note, turn: note.kind === 'interrupted' ? typeof note.turn : undefined }),
      },
    );
    s.send(setup());
    s.send({
      clientContent: {
        turns: [
          { role: 'user', parts: [{ text: 'an old question' }] },
          { role: 'model', parts: [{ text: 'an old answer' }] },
          { role: 'user', parts: [{ text: 'Weather in' }, { text: 'Paris?' }] },
        ],
        turnComplete: true,
      },
    });
    await until(() => s.messages().some((m) => m.toolCall));
    s.send({
      toolResponse: { functionResponses: [{ id: 'c1', name: 'get_weather', response: { sky: 'sunny' } }] },
    });
    await until(() => s.messages().some((m) => serverContent(m).modelTurn));
    s.send(say('Stop'));
    await until(() => s.messages().some((m) => serverContent(m).turnComplete));
    expect(notes).toEqual([
      { kind: 'user', via: 'text', text: 'Weather in Paris?' },
      { kind: 'tool output', callId: 'c1', output: { sky: 'sunny' } },
      { kind: 'interrupted', by: 'user', turn: 'object' },
      { kind: 'user', via: 'text', text: 'Stop' },
    ]);
    s.close();
  });

  it('notes nothing for content that does not complete a turn, then the whole turn when it does', () => {
    const notes: unknown[] = [];
    const s = session([reply('Hi.')], { note: (note) => notes.push(note) });
    s.send(setup());
    s.send({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'Hello' }] }] } });
    expect(notes).toEqual([]);
    s.send({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'there' }] }], turnComplete: true } });
    expect(notes).toEqual([{ kind: 'user', via: 'text', text: 'Hello there' }]);
    s.close();
  });
});
