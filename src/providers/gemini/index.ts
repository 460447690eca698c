import type { ProviderCodec } from '../codec';
import { decodeGemini, routeOf } from './decode';
import { encodeGeminiReply, encodeGeminiStream } from './encode';
import { encodeGeminiError } from './errors';
import { geminiReplyDecoder } from './reply';

export { encodeGeminiError };

/**
 * Gemini `POST /{v1,v1beta,v1alpha}/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`. The model and streaming come from the path.
 */
export const geminiGenerateContent: ProviderCodec = {
  protocol: 'gemini.generateContent',
  keepsOrder: true,
  provider: 'gemini',
  handles: (method, path) => method === 'POST' && routeOf(path) !== undefined,
  endpoints: [
    'POST /v1beta/models/{model}:generateContent',
    'POST /v1beta/models/{model}:streamGenerateContent?alt=sse',
  ],
  decode: decodeGemini,
  encodeReply: encodeGeminiReply,
  encodeStream: encodeGeminiStream,
  encodeError: encodeGeminiError,
  reply: geminiReplyDecoder,
};
