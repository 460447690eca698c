import { matcherError } from './guards';
import { EXPECTED_COLOR, matcherErrorMessage, printExpected, printWithType } from './matcher-utils';

export interface Range {
  min: number;
  max: number;
}

/**
 * Reads a bound as the matchers take it. `integer` for counts; durations may be fractional.
 * A bound that admits nothing (`{ min: 3, max: 1 }`) or nothing at all (`{}`) is a usage error:
 * it would fail or pass every run whatever the agent did.
 */
export function parseBounds(hint: string, label: string, value: unknown, integer: boolean): Range {
  const bad = (why: string) =>
    matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR(label)} ${why}`,
        printWithType(label, value, printExpected),
      ),
    );
  const number = (n: unknown, at: string) => {
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)))
      throw bad(`${at}must be ${integer ? 'an integer' : 'a number'} ≥ 0`);
    return n;
  };
  if (typeof value === 'number') {
    const n = number(value, '');
    return { min: n, max: n };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad(`must be ${integer ? 'a count' : 'a number of milliseconds'} or { min?, max? }`);
  const unknownKey = Object.keys(value).find((k) => k !== 'min' && k !== 'max');
  if (unknownKey !== undefined) throw bad(`has unknown key "${unknownKey}"; allowed keys: "min", "max"`);
  const { min, max } = value as { min?: unknown; max?: unknown };
  if (min === undefined && max === undefined) throw bad('needs min, max or both');
  const range = {
    min: min === undefined ? 0 : number(min, 'min '),
    max: max === undefined ? Number.POSITIVE_INFINITY : number(max, 'max '),
  };
  if (range.min > range.max) throw bad(`admits nothing: min ${range.min} is above max ${range.max}`);
  return range;
}

export const within = (n: number, range: Range): boolean => n >= range.min && n <= range.max;

/** `exactly 2 calls`, `at least 1 call`, `at most 3 calls`, `between 2 and 4 calls`. */
export function rangeText(range: Range, noun: string, plural = `${noun}s`): string {
  const of = (n: number) => `${n} ${n === 1 ? noun : plural}`;
  if (range.min === range.max) return `exactly ${of(range.min)}`;
  if (range.max === Number.POSITIVE_INFINITY) return `at least ${of(range.min)}`;
  if (range.min === 0) return `at most ${of(range.max)}`;
  return `between ${range.min} and ${of(range.max)}`;
}
