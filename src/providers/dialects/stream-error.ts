/**
 * A failure after the 200: the stream sends part of the reply, then the error event the
 * provider sends when generation fails mid-way, and ends. Each protocol's event is the one
 * its SDKs turn into an error: OpenAI `data: {"error": …}` (openai-node throws on it),
 * Responses `response.failed` or `error`, Anthropic `event: error`, Gemini `data: {"error": …}`
 * (@google/genai throws on a 4xx/5xx `code`), Bedrock an exception message, Ollama an
 * `{"error": …}` line (the ollama client throws on it).
 */
import type { NeutralError } from '../../conversation';
import type { FixtureStreamError } from '../../fixtures/types';
import type { BedrockEvent } from '../bedrock-converse/event-stream';
import type { WireStream } from '../codec';
import { eventCodecOf } from './events';
import { dataFrame, type SseFrame } from './frames';
import { renumber } from './openai-responses';

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const BEDROCK_EXCEPTIONS: Record<number, string> = {
  400: 'validationException',
  429: 'throttlingException',
  500: 'internalServerException',
  503: 'serviceUnavailableException',
};

interface ProtocolStreamError<E> {
  /** How many events at the end finish the reply (they never go out before the error). */
  terminal(events: E[]): number;
  event(error: FixtureStreamError, sent: E[]): E;
}

const chat: ProtocolStreamError<SseFrame> = {
  terminal: (frames) => {
    const finish = frames.findIndex((f) => f.data?.choices?.[0]?.finish_reason != null);
    return finish === -1 ? 1 : frames.length - finish;
  },
  event: (e) =>
    dataFrame({
      error: { message: e.message, type: e.type ?? 'server_error', param: null, code: e.code ?? null },
    }),
};

const responses: ProtocolStreamError<SseFrame> = {
  terminal: () => 1,
  event(e, sent) {
    const code = e.code ?? 'server_error';
    if (e.event === 'error')
      return dataFrame(
        { type: 'error', code, message: e.message, param: null, sequence_number: 0 },
        '\n',
        'error',
      );
    const response = {
      ...(sent[0]?.data?.response ?? {}),
      status: 'failed',
      error: { code, message: e.message },
    };
    return dataFrame({ type: 'response.failed', response, sequence_number: 0 }, '\n', 'response.failed');
  },
};

const messages: ProtocolStreamError<SseFrame> = {
  terminal: () => 2,
  event: (e) =>
    dataFrame(
      { type: 'error', error: { type: e.type ?? 'overloaded_error', message: e.message } },
      '\n',
      'error',
    ),
};

const gemini: ProtocolStreamError<SseFrame> = {
  terminal: () => 1,
  event(e) {
    const code = e.status ?? 503;
    return dataFrame(
      { error: { code, message: e.message, status: e.code ?? GOOGLE_STATUS[code] ?? 'INTERNAL' } },
      '\r\n',
    );
  },
};

const converse: ProtocolStreamError<BedrockEvent> = {
  terminal: () => 2,
  event: (e) => ({
    messageType: 'exception',
    type:
      e.type && /^[a-z][A-Za-z]*Exception$/.test(e.type)
        ? e.type
        : (BEDROCK_EXCEPTIONS[e.status ?? 0] ?? 'modelStreamErrorException'),
    payload: { message: e.message },
  }),
};

/** The line with `done: true` ends the reply; an error line takes its place. */
const ollama: ProtocolStreamError<SseFrame> = {
  terminal: () => 1,
  event: (e) => dataFrame({ error: e.message }),
};

const BY_PROTOCOL: Record<string, ProtocolStreamError<any>> = {
  'ollama.chat': ollama,
  'ollama.generate': ollama,
  'openai.chat': chat,
  'openai.responses': responses,
  'anthropic.messages': messages,
  'gemini.generateContent': gemini,
  'bedrock.converse': converse,
};

/** The reply's stream cut after `afterChunks` events (default half of them), ending with the error event. */
export function withStreamError(protocol: string, wire: WireStream, error: FixtureStreamError): WireStream {
  const spec = BY_PROTOCOL[protocol];
  if (!spec) return wire;
  const codec = eventCodecOf(protocol);
  const events = wire.events.map((e) => codec.read(e));
  const body = Math.max(0, events.length - spec.terminal(events));
  const cut = Math.min(error.afterChunks ?? Math.ceil(body / 2), body);
  const sent = events.slice(0, cut);
  const out = [...sent, spec.event(error, sent)];
  if (protocol === 'openai.responses') renumber(out);
  return { ...wire, events: out.map((e) => codec.write(e)) };
}

/** The same failure for a request that was not streamed: the provider's error response. */
export function plainStreamError(error: FixtureStreamError): NeutralError {
  const status = error.status ?? (error.type === 'overloaded_error' ? 529 : 500);
  return {
    status,
    type: error.type ?? 'server_error',
    message: error.message,
    ...(error.code !== undefined ? { code: error.code } : {}),
  };
}
