/**
 * How a reply goes out when a dialect or a mid-stream error shapes it: the codec encodes it as
 * always, the dialect rewrites that, and a stream error cuts it short. Only a stream can fail
 * mid-way: the model server answers a request that was not streamed with an error response
 * instead (src/sandbox/serve-model.ts).
 */
import type { Conversation, NeutralReply } from '../../conversation';
import type { DialectName } from '../../fixtures/stream-dialects';
import type { FixtureStreamError } from '../../fixtures/types';
import type { EncodeContext, ProviderCodec, WireResponse, WireStream } from '../codec';

// Required when a reply needs them: most replies go out as the codec encodes them.
const dialects = (): typeof import('./index') => require('./index');
const streamErrors = (): typeof import('./stream-error') => require('./stream-error');

export interface Delivery {
  dialect?: DialectName;
  streamError?: FixtureStreamError;
}

export type Delivered = { kind: 'stream'; wire: WireStream } | { kind: 'plain'; wire: WireResponse };

export function deliver(
  codec: ProviderCodec,
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
  { dialect, streamError }: Delivery = {},
): Delivered {
  if (!conversation.stream) {
    const wire = codec.encodeReply(reply, conversation, ctx);
    return {
      kind: 'plain',
      wire: dialect ? dialects().applyPlainDialect(dialect, codec.protocol, wire, reply) : wire,
    };
  }
  let wire = codec.encodeStream(reply, conversation, ctx);
  if (dialect) wire = dialects().applyStreamDialect(dialect, codec.protocol, wire, reply);
  if (streamError) wire = streamErrors().withStreamError(codec.protocol, wire, streamError);
  return { kind: 'stream', wire };
}
