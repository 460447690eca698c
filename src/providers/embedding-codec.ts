/** Embedding endpoints on the wire: the codec each provider's embedding API gets (answered by src/embeddings). */
import type { NeutralError, ProviderId } from '../conversation';
import type { DecodeContext, WireResponse } from './codec';

/** An embedding request, read from any protocol's wire body. */
export interface EmbeddingRequest {
  model: string;
  /** The texts to embed, in order (a single input is a list of one). */
  inputs: string[];
  /** The vector length asked for (`dimensions`, `outputDimensionality`), if any. */
  dimensions?: number;
  /** OpenAI's `encoding_format`: vectors as JSON numbers or as base64 float32. */
  encoding: 'float' | 'base64';
  /** Gemini: `embedContent` answers one vector, `batchEmbedContents` a list. */
  batch: boolean;
}

export type EmbeddingDecode = { ok: true; request: EmbeddingRequest } | { ok: false; error: NeutralError };

/** One embedding endpoint: pure functions between wire bodies and vectors. */
export interface EmbeddingCodec {
  protocol: string;
  provider: ProviderId;
  handles(method: string, path: string): boolean;
  decode(body: unknown, ctx: DecodeContext): EmbeddingDecode;
  encode(vectors: number[][], request: EmbeddingRequest, promptTokens: number): WireResponse;
  encodeError(error: NeutralError): WireResponse;
}
