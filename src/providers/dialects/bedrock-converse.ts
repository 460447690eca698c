/** Bedrock ConverseStream events, rewritten from the canonical stream (src/providers/bedrock-converse/encode.ts). */
import type { BedrockEvent } from '../bedrock-converse/event-stream';
import { isEmptyArguments } from '../partial-json';
import type { ProtocolDialect } from './types';

/** A zero-argument `toolUse` block: its `contentBlockStart` and `contentBlockStop`, no input delta between. */
const emptyArguments: ProtocolDialect<BedrockEvent> = {
  applies: (reply, streamed) => streamed && reply.toolCalls.some((c) => isEmptyArguments(c.arguments)),
  stream(events, reply) {
    const empty = new Set<number>();
    for (const e of events) {
      const use = e.type === 'contentBlockStart' ? e.payload.start?.toolUse : undefined;
      const call = use && reply.toolCalls.find((c) => c.id === use.toolUseId);
      if (call && isEmptyArguments(call.arguments)) empty.add(e.payload.contentBlockIndex);
    }
    return events.filter(
      (e) =>
        !(
          e.type === 'contentBlockDelta' &&
          e.payload.delta?.toolUse &&
          empty.has(e.payload.contentBlockIndex)
        ),
    );
  },
};

export const bedrockDialects = { 'empty-arguments': emptyArguments };
