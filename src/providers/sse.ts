/**
 * Helpers the reply decoders share: reading a server-sent-events body back into events
 * (with eventsource-parser, so CRLF framing, comments and multi-line data are handled as a
 * client would), and small readers for the JSON they carry.
 */
import type { FinishReason, NeutralError, NeutralUsage, WireOverrides } from '../conversation';

type Parser = typeof import('eventsource-parser');
let parser: Parser | undefined;
let load = (): Parser => require('eventsource-parser');

/**
 * Where eventsource-parser comes from. It is an ES module, which Jest's CommonJS runtime cannot
 * `require`; the environment offers Node's own loader from outside the test file instead.
 */
export function loadSseParserWith(loader: () => unknown): void {
  load = loader as () => Parser;
}

/** Loaded on first use: only recording reads streams back, and replay start-up stays lean. */
function createParser(callbacks: Parameters<Parser['createParser']>[0]) {
  parser ??= load();
  return parser.createParser(callbacks);
}

export interface SseEvent {
  /** The `event:` name, when the protocol names its events (Anthropic, Responses API). */
  event?: string;
  data: string;
}

/** Every event of a complete SSE body, in order. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => events.push(e.event === undefined ? { data: e.data } : { event: e.event, data: e.data }),
  });
  parser.feed(text);
  // A body cut mid-event still yields what it has.
  parser.reset({ consume: true });
  return events;
}

/** JSON data of an event; undefined when it is not JSON (a `[DONE]` sentinel, a corrupted chunk). */
export function jsonOf(data: string): any {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

export const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function usage(
  inputTokens: number,
  outputTokens: number,
  totalTokens: number | undefined,
  cachedInputTokens: number,
  reasoningTokens: number,
  cacheWriteInputTokens = 0,
): NeutralUsage {
  return {
    inputTokens,
    outputTokens,
    totalTokens: totalTokens ?? inputTokens + outputTokens,
    cachedInputTokens,
    reasoningTokens,
    ...(cacheWriteInputTokens > 0 ? { cacheWriteInputTokens } : {}),
  };
}

/** `{ wire }` for a reply, when there are wire values to keep. */
export const withWire = (wire: WireOverrides | undefined): { wire?: WireOverrides } =>
  wire && Object.keys(wire).length > 0 ? { wire } : {};

export function finishOr(value: unknown, fallback: FinishReason): FinishReason {
  return value === 'stop' || value === 'tool_calls' || value === 'length' || value === 'content_filter'
    ? value
    : fallback;
}

/** A stop reason looked up in a protocol's table; unknown or absent, the reply's own kind. */
export function finishIn(
  table: Record<string, FinishReason>,
  stop: unknown,
  hasCalls: boolean,
): FinishReason {
  return (typeof stop === 'string' && table[stop]) || (hasCalls ? 'tool_calls' : 'stop');
}

/** Tool arguments as JSON text: objects are serialised, text is kept as the model produced it. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value ?? {});
}

/** A provider error that is not in the provider's envelope (a proxy's HTML page, an empty body). */
export function unknownError(status: number, body: unknown, retryAfter?: number): NeutralError {
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  return {
    status,
    type: 'api_error',
    message: text.trim() === '' ? `HTTP ${status}` : text.slice(0, 500),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}
