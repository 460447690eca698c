import type { TextPattern } from '../fixtures/types';

export function isPattern(value: unknown): value is TextPattern {
  return value instanceof RegExp || (typeof value === 'object' && value !== null && 'regex' in value);
}

/** Fixtures may be shared RegExp objects: test a copy so `/g` and `/y` state never leaks between calls. */
export function compilePattern(pattern: TextPattern): RegExp {
  if (pattern instanceof RegExp) return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  return new RegExp(pattern.regex, (pattern.flags ?? '').replace(/[gy]/g, ''));
}
