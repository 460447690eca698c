import type { ProviderCodec } from '../codec';
import { encodeOpenAIError } from '../openai-chat/errors';
import { decodeResponses } from './decode';
import { encodeResponsesReply, encodeResponsesStream } from './encode';
import { responsesReplyDecoder } from './reply';

/**
 * OpenAI Responses API: `POST /responses`. Stateful: a reply's thread is kept under its
 * response id so `previous_response_id` (and each output item for `item_reference`) resolves.
 * Errors share Chat Completions' envelope.
 */
export const openaiResponses: ProviderCodec = {
  protocol: 'openai.responses',
  keepsOrder: true,
  provider: 'openai',
  handles: (method, path) => method === 'POST' && path === '/responses',
  endpoints: ['POST /responses'],
  decode: decodeResponses,
  encodeReply: encodeResponsesReply,
  encodeStream: encodeResponsesStream,
  encodeError: encodeOpenAIError,
  reply: responsesReplyDecoder,
};
