import { stripVTControlCharacters } from 'node:util';
import type { RunLike } from 'jest-understudy/matchers';

type CallSpec = string | [name: string, args: Record<string, unknown>];

/** A run-like object with the given calls, in order (`'name'` means no arguments). */
export function runOf(calls: CallSpec[], rest: Omit<RunLike, 'toolCalls'> = {}): RunLike {
  return {
    finalMessage: undefined,
    terminalState: 'succeeded',
    error: undefined,
    ...rest,
    toolCalls: calls.map((spec, i) => {
      const [name, args] = typeof spec === 'string' ? [spec, {}] : spec;
      return { id: `call_${i}`, name, arguments: args };
    }),
  };
}

/** The failure message `assertion` throws, without colors. */
export function failureOf(assertion: () => void): string {
  try {
    assertion();
  } catch (error) {
    return stripVTControlCharacters((error as Error).message);
  }
  throw new Error('expected the assertion to fail');
}
