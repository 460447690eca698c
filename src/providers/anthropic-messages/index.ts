// PLACEHOLDER: being written; replaced entirely by the real codec.
import type { NeutralError } from '../../conversation';
import type { ProviderCodec, WireResponse } from '../codec';

export const anthropicMessages: ProviderCodec = {
  protocol: 'anthropic-messages',
  provider: 'openai',
  handles: () => false,
  decode: () => {
    throw new Error('not yet');
  },
  encodeReply: () => {
    throw new Error('not yet');
  },
  encodeStream: () => {
    throw new Error('not yet');
  },
  encodeError: (e: NeutralError): WireResponse => ({ status: e.status, headers: {}, body: JSON.stringify(e) }),
};
export const encodeAnthropicError = anthropicMessages.encodeError;
