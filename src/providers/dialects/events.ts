/** How each protocol's streamed events read as values and back: SSE frames, or Bedrock's binary messages. */
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

/** Protocols whose events are not SSE frames. */
const BINARY: Record<string, EventCodec<any>> = { 'bedrock.converse': bedrockEvents };

export function eventCodecOf(protocol: string): EventCodec<any> {
  return BINARY[protocol] ?? SSE;
}
