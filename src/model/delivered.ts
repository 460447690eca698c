/**
 * What reached the client of a reply the wire cut short. The call's evidence is read back from
 * the events that went out, with the codec's own reply decoder, so a run's final message, tool
 * calls and usage are what the client could reassemble, never the rest of what was scripted.
 * Only cut replies come here: a reply that went out whole is its own evidence, decoded by no one.
 */
import type { NeutralReply } from '../conversation';
import { decodeMessages } from '../providers/bedrock-converse/event-stream';
import type { ReplyDecoder } from '../providers/codec';
import { parseSse } from '../providers/sse';
import type { ModelCall, ModelCallCut } from './call';

/** One `latin1` character per byte: the form `ReplyDecoder.decodeStream` reads a binary stream in. */
const latin1 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');

/**
 * The reply a client reassembles from the events of a stream that reached it (SSE text, or
 * Bedrock's binary messages); undefined when none did, or when what did is not a reply.
 */
export function replyOfEvents(
  decoder: ReplyDecoder | undefined,
  events: ReadonlyArray<string | Uint8Array>,
  model: string,
): NeutralReply | undefined {
  return readEvents(decoder, events, model)?.reply;
}

/** The same, and whether the events reached the stream's terminal event (the reply is whole). */
export function readEvents(
  decoder: ReplyDecoder | undefined,
  events: ReadonlyArray<string | Uint8Array>,
  model: string,
): { reply: NeutralReply; complete: boolean } | undefined {
  if (!decoder || events.length === 0) return undefined;
  let text = '';
  for (const event of events) text += typeof event === 'string' ? event : latin1(event);
  const result = decoder.decodeStream(text);
  if (!result.ok) return undefined;
  return {
    reply: result.reply.model ? result.reply : { ...result.reply, model },
    complete: result.complete,
  };
}

/** How a stream's events are framed: server-sent events, binary messages (Bedrock), or JSON lines (Ollama). */
export type StreamFraming = 'sse' | 'binary' | 'lines';

/**
 * The part of a provider's stream that a client got (record and live modes: chunks as the
 * network cut them), up to its last whole event, and how many events that is.
 */
export function wholeEventsOf(
  chunks: readonly Uint8Array[],
  framing: StreamFraming,
): { text: string; events: number } {
  const bytes = Buffer.concat(chunks);
  if (framing === 'binary') {
    const { messages, rest } = decodeMessages(bytes);
    return { text: latin1(bytes.subarray(0, bytes.length - rest.length)), events: messages.length };
  }
  const all = bytes.toString('utf8');
  if (framing === 'lines') {
    const text = all.slice(0, all.lastIndexOf('\n') + 1);
    return { text, events: text.split('\n').filter((l) => l.trim() !== '').length };
  }
  const end = Math.max(all.lastIndexOf('\n\n') + 2, all.lastIndexOf('\r\n\r\n') + 4, 0);
  const text = all.slice(0, end);
  return { text, events: parseSse(text).length };
}

/**
 * The call's reply was cut short on the wire: `response` becomes what arrived (absent when
 * nothing readable did), `whole` keeps the reply that was sent for it. A later, shorter cut
 * (the client went away before a planned one) replaces an earlier one.
 */
export function cutCall(call: ModelCall, cut: ModelCallCut, delivered: NeutralReply | undefined): void {
  if (call.cut === undefined && call.response !== undefined) call.whole = call.response;
  call.cut = cut;
  if (delivered) call.response = delivered;
  else delete call.response;
}
