import type { ProviderCodec } from '../codec';
import { decodeConverse, routeOf } from './decode';
import { encodeConverseReply, encodeConverseStream } from './encode';
import { encodeBedrockError } from './errors';
import { converseReplyDecoder } from './reply';

export { encodeBedrockError };

/**
 * Amazon Bedrock Runtime `POST /model/{modelId}/converse` and `/converse-stream` (the binary
 * AWS event stream). The model and streaming come from the path.
 */
export const bedrockConverse: ProviderCodec = {
  protocol: 'bedrock.converse',
  keepsOrder: true,
  provider: 'bedrock',
  toolCallIdPrefix: 'tooluse_',
  handles: (method, path) => method === 'POST' && routeOf(path) !== undefined,
  endpoints: ['POST /model/{modelId}/converse', 'POST /model/{modelId}/converse-stream'],
  decode: decodeConverse,
  encodeReply: encodeConverseReply,
  encodeStream: encodeConverseStream,
  encodeError: encodeBedrockError,
  reply: converseReplyDecoder,
};
