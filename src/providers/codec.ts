import type {
  Conversation,
  ConversationStore,
  NeutralError,
  NeutralReply,
  ProviderId,
} from '../conversation';
import type { StreamShaping } from '../fixtures/types';

/** A wire response, before it becomes a `Response`: codecs stay free of I/O. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A streamed wire response: each entry is one event, already framed (SSE text, or binary frames). */
export interface WireStream {
  status: number;
  headers: Record<string, string>;
  events: Array<string | Uint8Array>;
  /** The event, damaged for the `malformed` fault, where SSE's cut-off JSON does not fit the framing. */
  corrupt?: (event: string | Uint8Array) => string | Uint8Array;
  /**
   * Clients read on past a damaged event (NDJSON readers skip a line that is not JSON): it costs
   * only itself, where an SSE client stops at it.
   */
  readsPastCorrupt?: boolean;
}

/** Deterministic values a codec stamps on a reply (ids, timestamps). */
export interface EncodeContext {
  /** Per-file call number: makes response ids unique and stable. */
  callIndex: number;
  /** Seconds since the epoch for `created` fields. */
  created: number;
  shaping: StreamShaping;
  /** Where a stateful protocol keeps the conversation a reply ends, under its response id. */
  store: ConversationStore;
}

/** What a codec may read besides the body: the path (Gemini puts the model there), the query, stored threads. */
export interface DecodeContext {
  /** Path below the provider base URL, without the query. */
  path: string;
  query: URLSearchParams;
  store: ConversationStore;
}

export type DecodeResult = { ok: true; conversation: Conversation } | { ok: false; error: NeutralError };

/** One wire protocol: pure functions between wire bodies and the neutral shapes. */
export interface ProviderCodec {
  protocol: string;
  provider: ProviderId;
  /**
   * The wire keeps a reply's text and tool calls in their order (output items, content blocks,
   * parts): text after a call goes out after it. A protocol without it cannot send such a reply.
   */
  keepsOrder?: true;
  /** How generated tool call ids start on this protocol (default `call_`). */
  toolCallIdPrefix?: string;
  /** Does this codec serve `method path` (path relative to the provider base URL)? */
  handles(method: string, path: string): boolean;
  /** What `handles` accepts, for people: `POST /chat/completions` (relative to the base URL). */
  endpoints?: readonly string[];
  decode(body: unknown, ctx: DecodeContext): DecodeResult;
  encodeReply(reply: NeutralReply, conversation: Conversation, ctx: EncodeContext): WireResponse;
  encodeStream(reply: NeutralReply, conversation: Conversation, ctx: EncodeContext): WireStream;
  encodeError(error: NeutralError): WireResponse;
  /** The other direction, for recording a real provider: wire responses → neutral replies. */
  reply?: ReplyDecoder;
}

/** A wire response read back: the reply, or the error the provider answered with. */
export type ReplyDecodeResult =
  | {
      ok: true;
      reply: NeutralReply;
      /** False when a stream ended before its terminal event (a cut connection). */
      complete: boolean;
      /** The final wire object, for protocols that keep state by its ids (see `remember`). */
      raw?: unknown;
    }
  | { ok: false; error: NeutralError };

/** Reads a provider's responses back into neutral replies (see `reply.ts` in each provider folder). */
export interface ReplyDecoder {
  /** A plain (non-streamed) JSON response body. */
  decodeReply(body: unknown): ReplyDecodeResult;
  /** The full text of a streamed response (for `binaryStream`, one `latin1` character per byte). */
  decodeStream(text: string): ReplyDecodeResult;
  /** The content type of a stream that is not SSE but binary frames (Bedrock's event stream). */
  binaryStream?: string;
  /** The content type of a stream that is not SSE but one JSON object a line (Ollama's NDJSON). */
  lineStream?: string;
  /** The response header that carries the reply's id, where the body has none (Bedrock's request id). */
  idHeader?: string;
  /** An error response (status ≥ 400); `retryAfter` from the `retry-after` header, in seconds. */
  decodeError(status: number, body: unknown, retryAfter?: number): NeutralError;
  /**
   * For stateful protocols: keeps the thread a recorded reply ends under the provider's own
   * ids (`raw` from the decode result), so the next request that chains from it decodes.
   */
  remember?(raw: unknown, conversation: Conversation, store: ConversationStore): void;
}

/** Splits text into chunks of `size` code units, never splitting a surrogate pair. */
export function chunkText(text: string, size: number): string[] {
  if (text.length === 0) return [];
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}

export const DEFAULT_CHUNK_SIZE = 20;

export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/**
 * `sseData({ ...head, ...tail })` for the events of one stream, which repeat the same head (ids,
 * model, timestamps): the head is serialized once, each event adds its own fields. The bytes are
 * those of `sseData`.
 */
export function sseDataSharing(head: Record<string, unknown>): (tail: Record<string, unknown>) => string {
  const whole = JSON.stringify(head);
  const open = whole === '{}' ? 'data: {' : `data: ${whole.slice(0, -1)},`;
  return (tail) => {
    // A key of the head, or one that may be an array index (those come first in an object), is
    // placed by the object spread.
    for (const key in tail) {
      const first = key.charCodeAt(0);
      if (Object.hasOwn(head, key) || (first >= 48 && first <= 57)) return sseData({ ...head, ...tail });
    }
    const rest = JSON.stringify(tail);
    return rest === '{}' ? `data: ${whole}\n\n` : `${open}${rest.slice(1)}\n\n`;
  };
}

/** A named SSE event (`event:` line then `data:`), as Anthropic and the Responses API send them. */
export function sseEvent(type: string, payload: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}
