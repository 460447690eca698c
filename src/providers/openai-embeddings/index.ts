/**
 * OpenAI `POST /embeddings` (also Azure's deployment path and OpenAI-compatible gateways):
 * `input` is a string, a list of strings, or tokens; `encoding_format: base64` sends each
 * vector as little-endian float32 bytes (openai-node asks for it by default and decodes it).
 */
import { type EmbeddingCodec, type EmbeddingDecode, fullDimensionsOf } from '../embedding-codec';
import { encodeOpenAIError, openaiError } from '../openai-chat/errors';

const fail = (message: string, param?: string): EmbeddingDecode => ({
  ok: false,
  error: openaiError(400, message, param),
});

const INPUT_INVALID =
  "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
/** Inputs one request may carry. */
const MAX_INPUTS = 2048;

// Read once: in Jest's sandbox a global the sandbox prologue does not copy (scripts/sandbox-prologue.cjs)
// is a lookup through the context's interceptors.
const F32 = Float32Array;
/** Whether a Float32Array's bytes are already little-endian, as the wire wants them. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** OpenAI's `encoding_format: base64`: the float32 values, little-endian, in base64. */
function toBase64(vector: number[]): string {
  if (LITTLE_ENDIAN) {
    const floats = new F32(vector);
    return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
  }
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => {
    bytes.writeFloatLE(v, i * 4);
  });
  return bytes.toString('base64');
}

/** The texts of `input`; token arrays stand for themselves as text (the mock has no tokenizer to undo). */
function inputsOf(input: unknown): string[] | undefined {
  const one = (v: unknown): string | undefined =>
    typeof v === 'string'
      ? v
      : Array.isArray(v) && v.every((t) => Number.isInteger(t))
        ? v.join(' ')
        : undefined;
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((t) => Number.isInteger(t))) return [input.join(' ')];
  const texts = input.map(one);
  return texts.every((t): t is string => t !== undefined) ? texts : undefined;
}

function decode(body: unknown): EmbeddingDecode {
  const b = body as Record<string, any>;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    return fail('the request body must be a JSON object');
  if (typeof b.model !== 'string') return fail('you must provide a model parameter', 'model');
  if (b.input === undefined) return fail("'input' is a required property", 'input');
  const inputs = inputsOf(b.input);
  // The API takes at most 2048 inputs in one request (a list of token arrays counts each array).
  if (inputs && inputs.length > MAX_INPUTS) return { ok: false, error: openaiError(400, INPUT_INVALID) };
  if (!inputs) return fail(INPUT_INVALID, 'input');
  if (inputs.some((t) => t === '')) return fail(INPUT_INVALID, 'input');
  if (b.encoding_format !== undefined && b.encoding_format !== 'float' && b.encoding_format !== 'base64')
    return fail(
      `Invalid value for 'encoding_format': ${JSON.stringify(b.encoding_format)}. Supported values are: 'float' and 'base64'.`,
      'encoding_format',
    );
  if (b.dimensions !== undefined) {
    if (!Number.isInteger(b.dimensions) || b.dimensions < 1)
      return fail(
        `Invalid value for 'dimensions' = ${b.dimensions}. Must be a positive integer.`,
        'dimensions',
      );
    if (b.model.startsWith('text-embedding-ada-002'))
      return fail('This model does not support specifying dimensions.', 'dimensions');
    const full = fullDimensionsOf(b.model);
    if (full !== undefined && b.dimensions > full)
      return {
        ok: false,
        error: {
          ...openaiError(
            400,
            `Invalid 'dimensions': integer above maximum value. Expected a value <= ${full}, but got ${b.dimensions} instead.`,
            'dimensions',
          ),
          code: 'integer_above_max_value',
        },
      };
  }
  return {
    ok: true,
    request: {
      model: b.model,
      inputs,
      ...(b.dimensions !== undefined ? { dimensions: b.dimensions } : {}),
      encoding: b.encoding_format === 'base64' ? 'base64' : 'float',
      batch: true,
    },
  };
}

export const openaiEmbeddings: EmbeddingCodec = {
  protocol: 'openai.embeddings',
  provider: 'openai',
  handles: (method, path) => method === 'POST' && path === '/embeddings',
  endpoints: ['POST /embeddings'],
  decode,
  encode: (vectors, request, promptTokens) => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      object: 'list',
      data: vectors.map((v, index) => ({
        object: 'embedding',
        index,
        embedding: request.encoding === 'base64' ? toBase64(v) : v,
      })),
      model: request.model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    }),
  }),
  encodeError: encodeOpenAIError,
};
