/** How each protocol's streamed events read as values and back: SSE frames, Bedrock's binary messages, or Ollama's JSON lines. */
import { bedrockEvents } from '../bedrock-converse/event-stream';
import { readFrame, writeFrame } from './frames';

/** How a protocol's streamed events read as values and back (SSE frames unless it says otherwise). */
export interface EventCodec<E> {
  read(event: string | Uint8Array): E;
  write(event: E): string | Uint8Array;
}

const SSE: EventCodec<ReturnType<typeof readFrame>> = {
  read: (event) => readFrame(typeof event === 'string' ? event : new TextDecoder().decode(event)),
  write: writeFrame,
};

/** One JSON object a line (NDJSON), read as a frame of data so dialects and stream errors treat it as SSE's. */
const LINES: EventCodec<ReturnType<typeof readFrame>> = {
  read: (event) => {
    const text = typeof event === 'string' ? event : new TextDecoder().decode(event);
    try {
      return { data: JSON.parse(text), eol: '\n' };
    } catch {
      return { raw: text, eol: '\n' };
    }
  },
  write: (frame) => (frame.data === undefined ? (frame.raw ?? '') : `${JSON.stringify(frame.data)}\n`),
};

/** Protocols whose events are not SSE frames. */
const OTHER: Record<string, EventCodec<any>> = {
  'bedrock.converse': bedrockEvents,
  'ollama.chat': LINES,
  'ollama.generate': LINES,
};

export function eventCodecOf(protocol: string): EventCodec<any> {
  return OTHER[protocol] ?? SSE;
}
