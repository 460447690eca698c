import type { ProviderCodec } from '../codec';
import { decodeOllamaChat, decodeOllamaGenerate } from './decode';
import { encodeChatReply, encodeChatStream, encodeGenerateReply, encodeGenerateStream } from './encode';
import { encodeOllamaError } from './errors';
import { ollamaReplyDecoder } from './reply';

export { ollamaEmbed } from './embed';
export { encodeOllamaError } from './errors';

/** Ollama's native chat: `POST /api/chat` below the server's root (`http://localhost:11434`). */
export const ollamaChat: ProviderCodec = {
  protocol: 'ollama.chat',
  provider: 'ollama',
  handles: (method, path) => method === 'POST' && path === '/api/chat',
  endpoints: ['POST /api/chat'],
  decode: decodeOllamaChat,
  encodeReply: encodeChatReply,
  encodeStream: encodeChatStream,
  encodeError: encodeOllamaError,
  reply: ollamaReplyDecoder,
};

/** Ollama's completion endpoint: `POST /api/generate` (a prompt, no tools). */
export const ollamaGenerate: ProviderCodec = {
  protocol: 'ollama.generate',
  provider: 'ollama',
  handles: (method, path) => method === 'POST' && path === '/api/generate',
  endpoints: ['POST /api/generate'],
  decode: (body) => decodeOllamaGenerate(body),
  encodeReply: encodeGenerateReply,
  encodeStream: encodeGenerateStream,
  encodeError: encodeOllamaError,
  reply: ollamaReplyDecoder,
};
