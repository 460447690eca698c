/** Gemini's `streamGenerateContent` chunks, rewritten from the canonical stream (src/providers/gemini/encode.ts). */
import type { SseFrame } from './frames';
import type { ProtocolDialect } from './types';

const partsOf = (f: SseFrame): Array<Record<string, unknown>> =>
  f.data?.candidates?.[0]?.content?.parts ?? [];
const onlyCalls = (f: SseFrame) => {
  const parts = partsOf(f);
  return parts.length > 0 && parts.every((p) => p.functionCall !== undefined);
};

/**
 * Parallel function calls in one chunk, as Gemini sends a batch: the calls' chunks merged
 * into the last of them, which keeps its `finishReason` and `usageMetadata`.
 */
const batchedFunctionCalls: ProtocolDialect<SseFrame> = {
  applies: (reply, streamed) => streamed && reply.toolCalls.length > 1,
  stream(frames) {
    const out: SseFrame[] = [];
    for (const f of frames) {
      const previous = out[out.length - 1];
      if (previous && onlyCalls(previous) && onlyCalls(f)) {
        const candidate = f.data.candidates[0];
        out[out.length - 1] = {
          ...f,
          data: {
            ...f.data,
            candidates: [
              {
                ...candidate,
                content: { ...candidate.content, parts: [...partsOf(previous), ...partsOf(f)] },
              },
            ],
          },
        };
      } else out.push(f);
    }
    return out;
  },
};

export const geminiDialects = { 'batched-function-calls': batchedFunctionCalls };
