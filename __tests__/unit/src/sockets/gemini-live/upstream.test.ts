/**
 * Record and live modes for Gemini Live: the provider's messages read back into the neutral reply
 * (./upstream-reply.ts, against golden samples of the API's messages), and the relay that keeps
 * one provider socket per client socket (./relay.ts), driven by a scripted provider.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Conversation } from '../../../../../src/conversation';
import { LiveRelay } from '../../../../../src/sockets/gemini-live/relay';
import { liveReplyOf } from '../../../../../src/sockets/gemini-live/upstream-reply';
import type { SocketOpening, UpstreamSocketRequest } from '../../../../../src/sockets/protocol';

type Obj = Record<string, any>;
const golden = (name: string) => JSON.parse(readFileSync(join(__dirname, 'golden', name), 'utf8'));

describe('a Live model turn, read back', () => {
  it('text parts to turnComplete', () => {
    expect(liveReplyOf(golden('server-text.json'), 'models/gemini-live')).toEqual({
      ok: true,
      complete: true,
      reply: {
        content: 'The lights are on.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 },
        model: 'models/gemini-live',
      },
    });
  });

  it('a toolCall ends the turn: its calls with their ids and arguments', () => {
    expect(liveReplyOf([golden('tool-call.json')], 'm')).toMatchObject({
      ok: true,
      complete: true,
      reply: {
        content: null,
        toolCalls: [{ id: 'function-call-1', name: 'turn_on_the_lights', arguments: '{}' }],
        finishReason: 'tool_calls',
      },
    });
  });

  it('an audio answer is its output transcription, with the usage the last message reports', () => {
    expect(liveReplyOf(golden('upstream-audio-turn.json'), 'm')).toMatchObject({
      complete: true,
      reply: {
        content: 'The lights are on.',
        usage: { inputTokens: 412, outputTokens: 19, totalTokens: 431, cachedInputTokens: 256 },
      },
    });
  });

  it('a call sent without an id is anonymous (the recording derives one); a turn cut short is incomplete', () => {
    const anonymous = { toolCall: { functionCalls: [{ name: 'f', args: { a: 1 } }] } };
    expect(liveReplyOf([anonymous], 'm')).toMatchObject({
      reply: { toolCalls: [{ id: '', name: 'f', arguments: '{"a":1}', anonymous: true }] },
    });
    expect(liveReplyOf(golden('server-text.json').slice(0, 1), 'm')).toMatchObject({ complete: false });
  });
});

/** A provider that answers each client message with the messages `answer` gives. */
function provider(answer: (message: Obj) => Obj[]) {
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
      addEventListener: (type: string, l: (e: any) => void) => {
        listeners[type] ??= [];
        listeners[type].push(l);
      },
      send(data: string) {
        const message = JSON.parse(data);
        sent.push(message);
        queueMicrotask(() => {
          // As the API frames them: binary.
          for (const out of answer(message)) emit('message', { data: Buffer.from(JSON.stringify(out)) });
        });
      },
      close(code = 1000, reason = '') {
        socket.readyState = 3;
        emit('close', { code, reason });
      },
      /** A message the provider sends on its own. */
      emitMessage(out: Obj) {
        emit('message', { data: Buffer.from(JSON.stringify(out)) });
      },
    };
    setTimeout(() => {
      socket.readyState = 1;
      emit('open', {});
    });
    return socket as never;
  };
  return { sent, opened, connect };
}

const opening: SocketOpening = {
  url: new URL(
    'wss://generativelanguage.googleapis.com//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=AIza-live',
  ),
  path: '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent',
  header: () => null,
  headers: () => new Headers({ 'x-goog-api-client': 'genai', 'sec-websocket-key': 'abc' }),
  protocols: [],
};
const conversation = { model: 'models/gemini-live-2.5-flash-preview' } as Conversation;
const signal = () => new AbortController().signal;
const setup = {
  model: 'gemini-live-2.5-flash-preview',
  generationConfig: { responseModalities: ['AUDIO'] },
  systemInstruction: { parts: [{ text: 'You turn lights on.' }] },
  tools: [{ functionDeclarations: [{ name: 'turn_on_the_lights' }] }],
};
const user = { role: 'user', parts: [{ text: 'Lights on, please.' }] };

describe('the Live relay', () => {
  // Like aimock, this provider sends a turnComplete after its toolCall: it closes that turn, not the next.
  const answer = (message: Obj): Obj[] => {
    if (message.setup) return [{ setupComplete: {} }];
    if (message.clientContent) return [golden('tool-call.json'), { serverContent: { turnComplete: true } }];
    if (message.toolResponse) return golden('server-text.json');
    return [];
  };

  it('sets the provider session up as the client did, sends the user turns, then the function responses', async () => {
    const upstream = provider(answer);
    const relay = new LiveRelay(opening, upstream.connect);
    const first = await relay.turn({ setup, contents: [user] }, conversation, signal());
    expect(first).toMatchObject({ reply: { toolCalls: [{ id: 'function-call-1' }] } });
    const modelTurn = {
      role: 'model',
      parts: [{ functionCall: { id: 'function-call-1', name: 'turn_on_the_lights', args: {} } }],
    };
    const response = golden('tool-response.json').toolResponse.functionResponses[0];
    const second = await relay.turn(
      { setup, contents: [user, modelTurn, { role: 'user', parts: [{ functionResponse: response }] }] },
      conversation,
      signal(),
    );
    expect(second).toMatchObject({ complete: true, reply: { content: 'The lights are on.' } });
    relay.close();
    expect(upstream.opened).toEqual([
      {
        // The key in the query, kept; @google/genai's `//ws` sent as `/ws`.
        url: 'wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=AIza-live',
        headers: [['x-goog-api-client', 'genai']],
        protocols: [],
      },
    ]);
    expect(upstream.sent).toEqual([
      {
        setup: {
          model: 'models/gemini-live-2.5-flash-preview',
          generationConfig: { responseModalities: ['AUDIO'] },
          systemInstruction: setup.systemInstruction,
          tools: setup.tools,
          // An audio answer is read back by its transcript.
          outputAudioTranscription: {},
          // A spoken turn is recorded by its words.
          inputAudioTranscription: {},
        },
      },
      { clientContent: { turns: [user], turnComplete: true } },
      { toolResponse: { functionResponses: [response] } },
    ]);
  });

  it('a history the fixtures answered (record-missing) goes as clientContent, the model turns included', async () => {
    const upstream = provider(answer);
    const relay = new LiveRelay(opening, upstream.connect);
    const earlier = { role: 'model', parts: [{ text: 'Hello! What can I do?' }] };
    const greeting = { role: 'user', parts: [{ text: 'Hi' }] };
    await relay.turn({ setup, contents: [greeting, earlier, user] }, conversation, signal());
    expect(upstream.sent.slice(1)).toEqual([
      { clientContent: { turns: [greeting, earlier, user], turnComplete: true } },
    ]);
  });

  it('a spoken turn nobody heard is not sent: the turn is refused, saying why', async () => {
    const relay = new LiveRelay(opening, provider(answer).connect);
    const spoken = { role: 'user', parts: [{ inlineData: { mimeType: 'audio/pcm;rate=16000', data: '' } }] };
    await expect(relay.turn({ setup, contents: [spoken] }, conversation, signal())).rejects.toMatchObject({
      code: 'RECORD_UNSUPPORTED',
      message: expect.stringContaining('no words to send'),
    });
  });

  it('a spoken turn goes up as its audio; the input transcription is the turn, and the model turn after it its reply', async () => {
    const upstream = provider((message) => {
      if (message.setup) return [{ setupComplete: {} }];
      if (message.realtimeInput?.audioStreamEnd || message.realtimeInput?.activityEnd)
        return [
          { serverContent: { inputTranscription: { text: 'Lights on,' } } },
          { serverContent: { inputTranscription: { text: ' please.' } } },
          golden('tool-call.json'),
        ];
      return [];
    });
    const relay = new LiveRelay(opening, upstream.connect);
    const speech = { chunks: ['AAAA', 'BBBB'], digest: 'sha256:x', format: 'audio/pcm;rate=16000', setup };
    await expect(relay.hear(speech)).resolves.toBe('Lights on, please.');
    expect(upstream.sent.slice(1)).toEqual([
      { realtimeInput: { audio: { data: 'AAAA', mimeType: 'audio/pcm;rate=16000' } } },
      { realtimeInput: { audio: { data: 'BBBB', mimeType: 'audio/pcm;rate=16000' } } },
      { realtimeInput: { audioStreamEnd: true } },
    ]);
    // The session's turn, with the words heard: the provider has it, and its answer came already.
    const turn = await relay.turn(
      { setup, contents: [{ role: 'user', parts: [{ text: 'Lights on, please.' }] }] },
      conversation,
      signal(),
    );
    expect(turn).toMatchObject({ ok: true, reply: { toolCalls: [{ id: 'function-call-1' }] } });
    expect(upstream.sent).toHaveLength(4);
  });

  it('manual activity detection is mirrored: the audio goes between activityStart and activityEnd', async () => {
    const upstream = provider((message) => {
      if (message.setup) return [{ setupComplete: {} }];
      if (message.realtimeInput?.activityEnd)
        return [{ serverContent: { inputTranscription: { text: 'Hi' } } }, golden('tool-call.json')];
      return [];
    });
    const relay = new LiveRelay(opening, upstream.connect);
    const manual = { ...setup, realtimeInputConfig: { automaticActivityDetection: { disabled: true } } };
    await relay.hear({ chunks: ['AAAA'], digest: 'sha256:x', format: 'audio/pcm;rate=16000', setup: manual });
    expect(upstream.sent[0].setup.realtimeInputConfig).toEqual(manual.realtimeInputConfig);
    expect(upstream.sent.slice(1).map((m) => Object.keys(m.realtimeInput)[0])).toEqual([
      'activityStart',
      'audio',
      'activityEnd',
    ]);
  });

  it('no input transcription from the provider is RECORD_TRANSCRIPT_MISSING, naming the setting to turn on', async () => {
    const upstream = provider((message) => {
      if (message.setup) return [{ setupComplete: {} }];
      if (message.realtimeInput?.audioStreamEnd) return [golden('tool-call.json')];
      return [];
    });
    const relay = new LiveRelay(opening, upstream.connect);
    await expect(
      relay.hear({ chunks: ['AAAA'], digest: 'sha256:x', format: 'audio/pcm;rate=16000', setup }),
    ).rejects.toMatchObject({
      code: 'RECORD_TRANSCRIPT_MISSING',
      message: expect.stringContaining('inputAudioTranscription'),
    });
  });

  it('a cut turn is read to its end and is incomplete; the session goes on, and the next turn reads its own reply', async () => {
    const upstream = provider((message) => {
      if (message.setup) return [{ setupComplete: {} }];
      if (message.clientContent) return golden('server-text.json');
      return [];
    });
    const relay = new LiveRelay(opening, upstream.connect);
    const cut = new AbortController();
    const first = relay.turn({ setup, contents: [user] }, conversation, cut.signal);
    cut.abort();
    expect(await first).toMatchObject({
      ok: true,
      complete: false,
      reply: { content: 'The lights are on.' },
    });
    const again = { role: 'user', parts: [{ text: 'And the fan?' }] };
    const model = { role: 'model', parts: [{ text: 'The lights are on.' }] };
    const second = await relay.turn({ setup, contents: [user, model, again] }, conversation, signal());
    expect(second).toMatchObject({ ok: true, complete: true, reply: { content: 'The lights are on.' } });
    expect(upstream.sent.slice(1)).toEqual([
      { clientContent: { turns: [user], turnComplete: true } },
      { clientContent: { turns: [again], turnComplete: true } },
    ]);
  });

  it('a provider that closes mid-turn leaves an incomplete reply; one that closes before the turn began fails naming the close', async () => {
    const closing = (partial: Obj[]) => {
      const upstream = provider((message) => (message.setup ? [{ setupComplete: {} }] : []));
      return new LiveRelay(opening, (request) => {
        const socket = upstream.connect(request) as unknown as {
          send(d: string): void;
          close(code?: number, reason?: string): void;
          emitMessage(m: Obj): void;
        };
        const send = socket.send.bind(socket);
        socket.send = (data) => {
          send(data);
          if (!JSON.parse(data).clientContent) return;
          setTimeout(() => {
            for (const m of partial) socket.emitMessage(m);
            socket.close(1011, 'Resource has been exhausted');
          });
        };
        return socket as never;
      });
    };
    const partial = { serverContent: { modelTurn: { parts: [{ text: 'The lights' }] } } };
    expect(await closing([partial]).turn({ setup, contents: [user] }, conversation, signal())).toMatchObject({
      ok: true,
      complete: false,
      reply: { content: 'The lights' },
    });
    await expect(closing([]).turn({ setup, contents: [user] }, conversation, signal())).rejects.toThrow(
      "the provider's socket closed (1011: Resource has been exhausted)",
    );
  });
});
