import type { NeutralError, ProviderId } from '../conversation';
import type { Fixture } from '../fixtures/types';
import type { DecodeContext, WireResponse } from '../providers/codec';

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

/** An embedding request the mock model answered, in `understudy.model.embeddings`. */
export interface EmbeddingCall {
  protocol: string;
  provider: ProviderId;
  url: string;
  model: string;
  inputs: string[];
  /** The length of the vectors sent. */
  dimensions: number;
  /** Per input, the fixture whose vector answered it (undefined: the deterministic vector). */
  fixtures: Array<Fixture | undefined>;
  vectors?: number[][];
  error?: NeutralError;
}
