import type { ProviderCodec } from '../codec';
import { decodeMessages } from './decode';
import { encodeMessagesReply, encodeMessagesStream } from './encode';
import { encodeAnthropicError } from './errors';
import { messagesReplyDecoder } from './reply';

export { encodeAnthropicError } from './errors';

/** Anthropic Messages: `POST /v1/messages` below `https://api.anthropic.com` (beta requests add `?beta=true`). */
export const anthropicMessages: ProviderCodec = {
  protocol: 'anthropic.messages',
  keepsOrder: true,
  toolCallIdPrefix: 'toolu_',
  provider: 'anthropic',
  handles: (method, path) => method === 'POST' && path === '/v1/messages',
  endpoints: ['POST /v1/messages'],
  decode: decodeMessages,
  encodeReply: encodeMessagesReply,
  encodeStream: encodeMessagesStream,
  encodeError: encodeAnthropicError,
  reply: messagesReplyDecoder,
};
