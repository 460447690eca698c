/**
 * Ollama's `POST /api/embed` (`input`: a string or a list; `embeddings`: one vector each) and the
 * older `POST /api/embeddings` (`prompt`; one `embedding`).
 */
import type { EmbeddingCodec, EmbeddingDecode } from '../embedding-codec';
import { encodeOllamaError, ollamaError } from './errors';

const fail = (message: string, param?: string): EmbeddingDecode => ({
  ok: false,
  error: ollamaError(400, message, param),
});

function decode(body: unknown, ctx: { path: string }): EmbeddingDecode {
  const b = body as Record<string, any>;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    return fail('the request body must be a JSON object');
  if (typeof b.model !== 'string' || b.model === '') return fail('model is required', 'model');
  const legacy = ctx.path === '/api/embeddings';
  const input = legacy ? b.prompt : b.input;
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((t) => typeof t === 'string'))
    return legacy
      ? fail('prompt must be a string', 'prompt')
      : fail('invalid input type: input must be a string or a non-empty list of strings', 'input');
  if (b.dimensions !== undefined && (!Number.isInteger(b.dimensions) || b.dimensions < 1))
    return fail(`dimensions must be a positive integer, got ${JSON.stringify(b.dimensions)}`, 'dimensions');
  return {
    ok: true,
    request: {
      model: b.model,
      inputs,
      ...(b.dimensions !== undefined ? { dimensions: b.dimensions } : {}),
      encoding: 'float',
      batch: !legacy,
    },
  };
}

export const ollamaEmbed: EmbeddingCodec = {
  protocol: 'ollama.embed',
  provider: 'ollama',
  handles: (method, path) => method === 'POST' && (path === '/api/embed' || path === '/api/embeddings'),
  endpoints: ['POST /api/embed', 'POST /api/embeddings'],
  decode,
  encode: (vectors, request, promptTokens) => ({
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(
      request.batch
        ? {
            model: request.model,
            embeddings: vectors,
            total_duration: 1_000_000 + promptTokens * 100_000,
            load_duration: 1_000_000,
            prompt_eval_count: promptTokens,
          }
        : { embedding: vectors[0] },
    ),
  }),
  encodeError: encodeOllamaError,
};
