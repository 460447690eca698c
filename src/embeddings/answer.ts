/**
 * What the mock model answers an embedding request with: per input, the vector of the first
 * embedding fixture that matches it (aimock's `{ match: { inputText }, response: { embedding } }`),
 * else the deterministic vector of the text; an error fixture that matches answers the request.
 */
import type { NeutralError } from '../conversation';
import { compilePattern, isPattern, modelMatcher } from '../fixtures/patterns';
import type { Fixture, TextPattern } from '../fixtures/types';
import { errorFrom } from '../model/reply';
import type { EmbeddingRequest } from '../providers/embedding-codec';
import { dimensionsOf, embedding } from './vectors';

export type EmbeddingAnswer =
  | { kind: 'vectors'; vectors: number[][]; fixtures: Array<Fixture | undefined>; dimensions: number }
  | { kind: 'error'; error: NeutralError; fixture: Fixture };

function inputTest(value: string | TextPattern | undefined): (input: string) => boolean {
  if (value === undefined) return () => true;
  if (isPattern(value)) {
    const re = compilePattern(value);
    return (input) => re.test(input);
  }
  return (input) => input.includes(value);
}

function matches(fixture: Fixture, request: EmbeddingRequest, input: string): boolean {
  const m = fixture.match;
  if (m.model !== undefined && !modelMatcher(m.model)(request.model)) return false;
  return inputTest(m.inputText)(input);
}

export function answerEmbedding(request: EmbeddingRequest, fixtures: readonly Fixture[]): EmbeddingAnswer {
  const dimensions = request.dimensions ?? dimensionsOf(request.model);
  const chosen = request.inputs.map((input) => fixtures.find((f) => matches(f, request, input)));
  const failing = chosen.find((f) => f?.response.error !== undefined);
  if (failing) return { kind: 'error', error: errorFrom(failing) as NeutralError, fixture: failing };
  const vectors = request.inputs.map((input, i) => {
    const given = (chosen[i]?.response as { embedding?: number[] } | undefined)?.embedding;
    return given ? [...given] : embedding(input, request.model, dimensions);
  });
  return { kind: 'vectors', vectors, fixtures: chosen, dimensions: vectors[0]?.length ?? dimensions };
}
