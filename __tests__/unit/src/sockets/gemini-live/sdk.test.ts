/**
 * The protocol against the real client: @google/genai's `ai.live.connect` over a `ws` server on a
 * local port, whose connections the protocol serves with scripted model turns. What the SDK
 * sends (its setup, text frames, tool responses) must read, and what the protocol sends (binary
 * frames) must reach its callbacks as the API's messages.
 */
import type { AddressInfo } from 'node:net';
import { GoogleGenAI, type LiveServerMessage, Modality } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WebSocketServer } from 'ws';
import type { Conversation, NeutralError, NeutralToolCall } from '../../../../../src/conversation';
import { geminiLive } from '../../../../../src/sockets/gemini-live';
import type { TurnOutcome } from '../../../../../src/sockets/protocol';

const usage = { inputTokens: 9, outputTokens: 4, totalTokens: 13, cachedInputTokens: 0, reasoningTokens: 0 };
const reply = (content: string | null, toolCalls: NeutralToolCall[] = []): TurnOutcome => ({
  kind: 'reply',
  reply: { content, toolCalls, finishReason: toolCalls.length ? 'tool_calls' : 'stop', usage, model: 'm' },
  shaping: {},
  cut: () => undefined,
});

let server: WebSocketServer;
let base: string;
let script: TurnOutcome[] = [];
const conversations: Conversation[] = [];
const refused: NeutralError[] = [];
const paths: string[] = [];

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('connection', (socket, request) => {
    const url = new URL(`${base.replace('http', 'ws')}${request.url}`);
    paths.push(url.pathname);
    const connection = geminiLive.open(
      { url, path: url.pathname, header: () => null, protocols: [] } as never,
      {
        send: (data) => socket.send(data),
        close: (code, reason) => socket.close(code, reason),
        drop: () => socket.terminate(),
      },
      {
        answer: async (conversation: Conversation) => {
          conversations.push(structuredClone(conversation));
          const next = script.shift();
          if (!next) throw new Error('no model turn left');
          return next;
        },
        refused: (error: NeutralError) => refused.push(error),
      } as never,
    );
    socket.on('message', (data, binary) =>
      connection.message(binary ? new Uint8Array(data as Buffer) : (data as Buffer).toString('utf8')),
    );
    socket.on('close', (code, reason) => connection.closed(code, reason.toString()));
  });
});

afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise((resolve) => server.close(resolve));
});

/** A session's messages until `done` says stop, or the socket closes. */
async function converse(
  config: Record<string, unknown>,
  act: (session: any, message: LiveServerMessage) => boolean | undefined,
  start: (session: any) => void,
) {
  const messages: LiveServerMessage[] = [];
  let finish!: (value: { closed?: { code: number; reason: string } }) => void;
  const ended = new Promise<{ closed?: { code: number; reason: string } }>((resolve) => (finish = resolve));
  let session: any;
  const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: base } });
  session = await ai.live.connect({
    model: 'gemini-live-2.5-flash-preview',
    config: config as never,
    callbacks: {
      onmessage: (message) => {
        messages.push(message);
        if (act(session, message)) {
          session.close();
          finish({});
        }
      },
      onclose: (event) => finish({ closed: { code: event.code, reason: event.reason } }),
    },
  });
  start(session);
  const end = await ended;
  return { messages, ...end };
}

const weatherTools = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
  },
];

describe('Gemini Live with @google/genai', () => {
  it('serves the socket the SDK opens, and runs a function call round trip in TEXT', async () => {
    script = [
      reply(null, [{ id: 'function-call-1', name: 'get_weather', arguments: '{"city":"Paris"}' }]),
      reply('Sunny, 18°C.'),
    ];
    conversations.length = 0;
    let text = '';
    const { messages, closed } = await converse(
      { responseModalities: [Modality.TEXT], systemInstruction: 'Be brief.', tools: weatherTools },
      (session, m) => {
        if (m.toolCall)
          session.sendToolResponse({
            functionResponses: m.toolCall.functionCalls?.map((c) => ({
              id: c.id,
              name: c.name,
              response: { tempC: 18 },
            })),
          });
        text += m.text ?? '';
        return m.serverContent?.turnComplete;
      },
      (session) => session.sendClientContent({ turns: 'What is the weather in Paris?' }),
    );
    expect(closed).toBeUndefined();
    // A base URL of its own makes the SDK open v1, after a doubled slash.
    expect(paths.at(-1)).toBe('//ws/google.ai.generativelanguage.v1.GenerativeService.BidiGenerateContent');
    expect(text).toBe('Sunny, 18°C.');
    expect(messages.find((m) => m.toolCall)?.toolCall?.functionCalls).toEqual([
      { id: 'function-call-1', name: 'get_weather', args: { city: 'Paris' } },
    ]);
    expect(messages.at(-1)?.usageMetadata).toMatchObject({ totalTokenCount: 13 });
    expect(conversations[0].messages).toEqual([
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'What is the weather in Paris?' },
    ]);
    expect(conversations[0].tools.map((t) => t.name)).toEqual(['get_weather']);
    expect(conversations[1].messages.at(-1)).toEqual({
      role: 'tool',
      text: '{"tempC":18}',
      toolCallId: 'function-call-1',
    });
  });

  it('answers in AUDIO with the transcript alongside, which the SDK reads as data and transcription', async () => {
    script = [reply('Hello from the mock.')];
    let transcript = '';
    let audio = '';
    await converse(
      { responseModalities: [Modality.AUDIO], outputAudioTranscription: {} },
      (_session, m) => {
        audio += m.data ?? '';
        transcript += m.serverContent?.outputTranscription?.text ?? '';
        return m.serverContent?.turnComplete;
      },
      (session) => session.sendClientContent({ turns: 'Hi' }),
    );
    expect(transcript).toBe('Hello from the mock.');
    expect(audio.length).toBeGreaterThan(1000);
  });

  it('closes with 1007 and the reason the SDK reports for a setup the API refuses', async () => {
    refused.length = 0;
    const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: base } });
    const error = await ai.live
      .connect({
        model: 'gemini-live-2.5-flash-preview',
        config: { responseModalities: [Modality.TEXT, Modality.AUDIO] },
        callbacks: { onmessage: () => undefined },
      })
      .catch((e: unknown) => e);
    expect(String(error)).toContain('(code 1007): Request contains an invalid argument.');
    expect(refused[0].param).toBe('setup.generationConfig.responseModalities');
  });
});
