/** ajv's validation errors in words, for findings and for the engine's error envelopes. */
import type { ErrorObject } from 'ajv';
import { formatPath, pointerToSegments } from '../file-format/json-path';

/** Validation messages of ajv, as "$.id must be string". */
export function ajvMessages(errors: readonly ErrorObject[] | null | undefined, data: unknown): string[] {
  return (errors ?? []).map((error) => {
    const path = formatPath(pointerToSegments(error.instancePath, data));
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${JSON.stringify(error.params.additionalProperty)})`
        : error.keyword === 'enum'
          ? ` (${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`
          : '';
    return `${path} ${error.message}${extra}`;
  });
}
