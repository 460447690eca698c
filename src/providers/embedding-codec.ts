/** Embedding endpoints on the wire: the codec each provider's embedding API gets (answered by src/embeddings). */
import type { NeutralError, ProviderId } from '../conversation';
import type { DecodeContext, WireResponse } from './codec';

/** The vector length of each known embedding model (what a request for fewer `dimensions` shortens). */
const DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'gemini-embedding-001': 3072,
  'gemini-embedding-exp-03-07': 3072,
  'text-embedding-004': 768,
  'text-embedding-005': 768,
  'text-multilingual-embedding-002': 768,
  'embedding-001': 768,
  'amazon.titan-embed-text-v2:0': 1024,
};

/** The full vector length of a known model, or undefined. */
export function fullDimensionsOf(model: string): number | undefined {
  const name = model.replace(/^models\//, '');
  return Object.hasOwn(DIMENSIONS, name) ? DIMENSIONS[name] : undefined;
}

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
  /** What `handles` accepts, for people: `POST /embeddings` (relative to the base URL). */
  endpoints?: readonly string[];
  decode(body: unknown, ctx: DecodeContext): EmbeddingDecode;
  encode(vectors: number[][], request: EmbeddingRequest, promptTokens: number): WireResponse;
  encodeError(error: NeutralError): WireResponse;
}
