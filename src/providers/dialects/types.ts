import type { NeutralReply } from '../../conversation';

/**
 * One dialect on one protocol: a pure rewrite of what the codec encoded, streamed events
 * (`E`: SSE frames, or AWS event-stream messages for Bedrock) or a plain reply's body.
 */
export interface ProtocolDialect<E> {
  /** Whether the dialect changes this reply (a dialect of parallel calls needs two calls). */
  applies(reply: NeutralReply, streamed: boolean): boolean;
  stream?(events: E[], reply: NeutralReply): E[];
  /** Rewrites the parsed JSON body of a plain reply (in place or not; the result is sent). */
  plain?(body: any, reply: NeutralReply): any;
}
