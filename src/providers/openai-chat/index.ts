import type { ProviderCodec } from '../codec';
import { decodeChat } from './decode';
import { encodeChatReply, encodeChatStream } from './encode';
import { encodeOpenAIError } from './errors';
import { chatReplyDecoder } from './reply';

/** OpenAI Chat Completions: `POST /chat/completions`. */
export const openaiChat: ProviderCodec = {
  protocol: 'openai.chat',
  provider: 'openai',
  handles: (method, path) => method === 'POST' && path === '/chat/completions',
  endpoints: ['POST /chat/completions'],
  decode: (body) => decodeChat(body),
  encodeReply: encodeChatReply,
  encodeStream: encodeChatStream,
  encodeError: encodeOpenAIError,
  reply: chatReplyDecoder,
};
