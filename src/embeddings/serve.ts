/** An embedding request from the wire to the wire: decode, answer from the fixtures, log, encode. */

import type { NeutralError } from '../conversation';
import type { Fixture } from '../fixtures/types';
import type { EmbeddingCall } from '../model/call';
import type { DecodeContext, WireResponse } from '../providers/codec';
import type { EmbeddingCodec } from '../providers/embedding-codec';
import { answerEmbedding } from './answer';
import { tokensOf } from './vectors';

export function serveEmbedding(
  codec: EmbeddingCodec,
  text: string,
  ctx: DecodeContext,
  url: string,
  fixtures: readonly Fixture[],
  log: (call: EmbeddingCall) => void,
  /** A request the API refuses (out-of-range dimensions, too many inputs…): told before the 400 goes back. */
  refused?: (error: NeutralError) => void,
): WireResponse {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return codec.encodeError({
      status: 400,
      type: 'invalid_request_error',
      message: 'the request body is not valid JSON',
    });
  }
  const decoded = codec.decode(body, ctx);
  if (!decoded.ok) {
    refused?.(decoded.error);
    return codec.encodeError(decoded.error);
  }
  const { request } = decoded;
  const base = {
    protocol: codec.protocol,
    provider: codec.provider,
    url,
    model: request.model,
    inputs: request.inputs,
  };
  const answer = answerEmbedding(request, fixtures);
  if (answer.kind === 'error') {
    log({ ...base, dimensions: 0, fixtures: request.inputs.map(() => answer.fixture), error: answer.error });
    return codec.encodeError(answer.error);
  }
  log({ ...base, dimensions: answer.dimensions, fixtures: answer.fixtures, vectors: answer.vectors });
  return codec.encode(answer.vectors, request, tokensOf(request.inputs));
}
