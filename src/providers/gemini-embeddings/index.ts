/**
 * Gemini `POST /{version}/models/{model}:embedContent` (one `content`, one `embedding`) and
 * `:batchEmbedContents` (`requests`, `embeddings`), with `outputDimensionality`.
 */
import type { NeutralError } from '../../conversation';
import { type EmbeddingCodec, type EmbeddingDecode, fullDimensionsOf } from '../embedding-codec';
import { encodeGeminiError, invalidArgument } from '../gemini/errors';

const ROUTE = /^\/(?:v1|v1beta|v1alpha)\/models\/([^/:]+):(embedContent|batchEmbedContents)$/;

/** Requests one batchEmbedContents call may carry. */
const MAX_BATCH = 100;

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const textOf = (content: unknown): string | undefined => {
  if (!isObject(content) || !Array.isArray(content.parts)) return undefined;
  const texts = content.parts.flatMap((p: unknown) =>
    isObject(p) && typeof p.text === 'string' ? [p.text] : [],
  );
  return texts.length > 0 ? texts.join('') : undefined;
};

const invalid = (message: string): NeutralError => ({ status: 400, type: 'INVALID_ARGUMENT', message });

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
  if (requests.length > MAX_BATCH)
    return {
      ok: false,
      error: invalid(
        `* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch\n`,
      ),
    };
  const inputs: string[] = [];
  let dimensions: number | undefined;
  for (const [i, r] of requests.entries()) {
    const text = isObject(r) ? textOf(r.content) : undefined;
    if (text === undefined)
      return fail(batch ? `requests[${i}].content` : 'content', 'content must have text parts');
    inputs.push(text);
    const d = isObject(r) ? (r.outputDimensionality ?? r.output_dimensionality) : undefined;
    const full = fullDimensionsOf(model);
    if (typeof d === 'number' && full !== undefined && d > full)
      return {
        ok: false,
        error: invalid(
          `Unable to submit request because it has an outputDimensionality value of ${d} but the supported range is from 1 (inclusive) to ${full + 1} (exclusive). Update the value and try again.`,
        ),
      };
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
  endpoints: ['POST /v1beta/models/{model}:embedContent', 'POST /v1beta/models/{model}:batchEmbedContents'],
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
