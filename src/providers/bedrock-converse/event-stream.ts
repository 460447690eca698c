/**
 * The AWS event-stream framing Bedrock's ConverseStream answers with
 * (`application/vnd.amazon.eventstream`). Each message:
 *
 *   total length (u32) | headers length (u32) | prelude CRC32 | headers | payload | message CRC32
 *
 * all big-endian, the CRCs over everything before them. A header is its name (u8 length,
 * UTF-8), a type byte and a typed value; Bedrock sends string headers (`:event-type`,
 * `:content-type`, `:message-type`, `:exception-type`). Node's zlib computes the CRC32 (the
 * same polynomial, IEEE 802.3), so no library is needed for a format this small.
 */
import { crc32 } from 'node:zlib';

export type HeaderValue = string | number | bigint | boolean | Uint8Array;

export interface EventStreamMessage {
  headers: Record<string, HeaderValue>;
  payload: Uint8Array;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

const PRELUDE = 12;
const CHECKSUM = 4;

/** A message's header block: per string header, its name (u8 length), type 7 and value (u16 length). */
function headerBlock(headers: Record<string, string>): Uint8Array {
  const encoded: Uint8Array[] = [];
  let length = 0;
  for (const name in headers) {
    const n = utf8.encode(name);
    const v = utf8.encode(headers[name]);
    encoded.push(n, v);
    length += 1 + n.length + 1 + 2 + v.length;
  }
  const block = new Uint8Array(length);
  let at = 0;
  for (let i = 0; i < encoded.length; i += 2) {
    const name = encoded[i];
    const value = encoded[i + 1];
    block[at++] = name.length;
    block.set(name, at);
    at += name.length;
    block[at++] = 7; // string
    block[at++] = value.length >>> 8;
    block[at++] = value.length & 0xff;
    block.set(value, at);
    at += value.length;
  }
  return block;
}

function setUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = (value >>> 16) & 0xff;
  bytes[at + 2] = (value >>> 8) & 0xff;
  bytes[at + 3] = value & 0xff;
}

/**
 * Frames one message around a header block: the prelude and its CRC, the headers, the payload
 * (bytes, or text written as UTF-8 in place) and the message CRC.
 */
function frame(headers: Uint8Array, payload: Uint8Array | string): Uint8Array {
  const payloadLength = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  const total = PRELUDE + headers.length + payloadLength + CHECKSUM;
  const bytes = new Uint8Array(total);
  setUint32(bytes, 0, total);
  setUint32(bytes, 4, headers.length);
  setUint32(bytes, 8, crc32(bytes.subarray(0, 8)));
  bytes.set(headers, PRELUDE);
  const at = PRELUDE + headers.length;
  if (typeof payload === 'string') utf8.encodeInto(payload, bytes.subarray(at, at + payloadLength));
  else bytes.set(payload, at);
  setUint32(bytes, total - CHECKSUM, crc32(bytes.subarray(0, total - CHECKSUM)));
  return bytes;
}

/** Frames one message with string headers, in the order given. */
export function encodeMessage(headers: Record<string, string>, payload: Uint8Array): Uint8Array {
  return frame(headerBlock(headers), payload);
}

export class EventStreamError extends Error {}

function readHeaders(
  bytes: Uint8Array,
  view: DataView,
  start: number,
  end: number,
): Record<string, HeaderValue> {
  const headers: Record<string, HeaderValue> = {};
  let at = start;
  while (at < end) {
    const nameLength = bytes[at++];
    const name = fromUtf8.decode(bytes.subarray(at, at + nameLength));
    at += nameLength;
    const type = bytes[at++];
    let value: HeaderValue;
    switch (type) {
      case 0:
      case 1:
        value = type === 0;
        break;
      case 2:
        value = view.getInt8(at);
        at += 1;
        break;
      case 3:
        value = view.getInt16(at);
        at += 2;
        break;
      case 4:
        value = view.getInt32(at);
        at += 4;
        break;
      case 5:
      case 8:
        value = view.getBigInt64(at);
        at += 8;
        break;
      case 6:
      case 7: {
        const length = view.getUint16(at);
        at += 2;
        const raw = bytes.slice(at, at + length);
        value = type === 7 ? fromUtf8.decode(raw) : raw;
        at += length;
        break;
      }
      case 9:
        value = bytes.slice(at, at + 16);
        at += 16;
        break;
      default:
        throw new EventStreamError(`unknown header type ${type} for header ${JSON.stringify(name)}`);
    }
    headers[name] = value;
  }
  return headers;
}

/**
 * The whole messages at the start of `bytes`, and the bytes after them (a message cut off
 * mid-way, as a dropped connection leaves it). A checksum that does not match throws.
 */
export function decodeMessages(bytes: Uint8Array): { messages: EventStreamMessage[]; rest: Uint8Array } {
  const messages: EventStreamMessage[] = [];
  let at = 0;
  while (bytes.length - at >= PRELUDE) {
    const view = new DataView(bytes.buffer, bytes.byteOffset + at, bytes.length - at);
    const total = view.getUint32(0);
    const headersLength = view.getUint32(4);
    if (total < PRELUDE + CHECKSUM || headersLength > total - PRELUDE - CHECKSUM)
      throw new EventStreamError(`a message declares ${total} bytes with ${headersLength} bytes of headers`);
    if (crc32(bytes.subarray(at, at + 8)) !== view.getUint32(8))
      throw new EventStreamError('the prelude checksum does not match');
    if (bytes.length - at < total) break;
    const message = bytes.subarray(at, at + total);
    if (crc32(message.subarray(0, total - CHECKSUM)) !== view.getUint32(total - CHECKSUM))
      throw new EventStreamError('the message checksum does not match');
    const headers = readHeaders(message, view, PRELUDE, PRELUDE + headersLength);
    messages.push({ headers, payload: message.slice(PRELUDE + headersLength, total - CHECKSUM) });
    at += total;
  }
  return { messages, rest: bytes.subarray(at) };
}

/** One ConverseStream event as a value: its type (`contentBlockDelta`…) and JSON payload. */
export interface BedrockEvent {
  /** `event`, or `exception` for an error the stream ends with. */
  messageType: 'event' | 'exception';
  /** `:event-type` of an event, `:exception-type` of an exception. */
  type: string;
  payload: any;
}

/**
 * The header blocks of the events an encoder sends, by message type and event type: a stream
 * repeats a handful of types, and their headers are the same bytes every time.
 */
const eventHeaders = new Map<string, Uint8Array>();
const MAX_EVENT_HEADERS = 64;

function eventHeaderBlock(messageType: BedrockEvent['messageType'], type: string): Uint8Array {
  const key = `${messageType}\u0000${type}`;
  let block = eventHeaders.get(key);
  if (block) return block;
  block = headerBlock(
    messageType === 'exception'
      ? { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }
      : { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
  );
  if (eventHeaders.size < MAX_EVENT_HEADERS) eventHeaders.set(key, block);
  return block;
}

export function encodeEvent(event: BedrockEvent): Uint8Array {
  // `JSON.stringify(undefined)` is no text: an empty payload, as TextEncoder made it.
  return frame(eventHeaderBlock(event.messageType, event.type), JSON.stringify(event.payload) ?? '');
}

export function decodeEvent(message: EventStreamMessage): BedrockEvent {
  const exception = message.headers[':message-type'] === 'exception';
  const type = String(message.headers[exception ? ':exception-type' : ':event-type'] ?? '');
  const text = fromUtf8.decode(message.payload);
  let payload: unknown = text;
  try {
    payload = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { messageType: exception ? 'exception' : 'event', type, payload };
}

/** Events as values for the dialects and mid-stream errors, framed again afterwards. */
export const bedrockEvents = {
  read(event: string | Uint8Array): BedrockEvent {
    const bytes = typeof event === 'string' ? utf8.encode(event) : event;
    const { messages } = decodeMessages(bytes);
    return decodeEvent(messages[0]);
  },
  write: encodeEvent,
};

/** A well-framed event whose JSON payload is cut off, for the `malformed` fault. */
export function corruptEvent(event: string | Uint8Array): Uint8Array {
  const value = bedrockEvents.read(event);
  const json = JSON.stringify(value.payload);
  return encodeMessage(
    { ':event-type': value.type, ':content-type': 'application/json', ':message-type': 'event' },
    utf8.encode(json.slice(0, Math.max(1, Math.floor(json.length / 2)))),
  );
}
