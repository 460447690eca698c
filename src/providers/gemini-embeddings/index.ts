/**
 * Gemini `POST /{version}/models/{model}:embedContent` (one `content`, one `embedding`) and
 * `:batchEmbedContents` (`requests`, `embeddings`), with `outputDimensionality`.
 */
import type { EmbeddingCodec, EmbeddingDecode } from '../embedding-codec';
import { encodeGeminiError, invalidArgument } from '../gemini/errors';

const ROUTE = /^\/(?:v1|v1beta|v1alpha)\/models\/([^/:]+):(embedContent|batchEmbedContents)$/;

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const textOf = (content: unknown): string | undefined => {
  if (!isObject(content) || !Array.isArray(content.parts)) return undefined;
  const texts = content.parts.flatMap((p: unknown) =>
    isObject(p) && typeof p.text === 'string' ? [p.text] : [],
  );
  return texts.length > 0 ? texts.join('') : undefined;
};

const fail = (field: string, problem: string): EmbeddingDecode => ({
  ok: false,
  error: { ...invalidArgument(field, problem), message: `* EmbedContentRequest.${field}: ${problem}\n` },
});

function decode(body: unknown, ctx: { path: string }): EmbeddingDecode {
  const route = ROUTE.exec(ctx.path);
  if (!route || !isObject(body)) return fail('content', 'Invalid JSON payload received.');
  const model = decodeURIComponent(route[1]);
  const batch = route[2] === 'batchEmbedContents';
  const requests: unknown[] = batch ? (Array.isArray(body.requests) ? body.requests : []) : [body];
  if (requests.length === 0) return fail('requests', 'at least one request is required');
  const inputs: string[] = [];
  let dimensions: number | undefined;
  for (const [i, r] of requests.entries()) {
    const text = isObject(r) ? textOf(r.content) : undefined;
    if (text === undefined)
      return fail(batch ? `requests[${i}].content` : 'content', 'content must have text parts');
    inputs.push(text);
    const d = isObject(r) ? (r.outputDimensionality ?? r.output_dimensionality) : undefined;
    if (d !== undefined) dimensions = d;
  }
  return {
    ok: true,
    request: { model, inputs, ...(dimensions !== undefined ? { dimensions } : {}), encoding: 'float', batch },
  };
}

export const geminiEmbeddings: EmbeddingCodec = {
  protocol: 'gemini.embedContent',
  provider: 'gemini',
  handles: (method, path) => method === 'POST' && ROUTE.test(path),
  decode,
  encode: (vectors, request) => ({
    status: 200,
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(
      request.batch
        ? { embeddings: vectors.map((values) => ({ values })) }
        : { embedding: { values: vectors[0] } },
    ),
  }),
  encodeError: encodeGeminiError,
};
