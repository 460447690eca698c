import type { MatcherContext } from 'expect';
import { isPlainObject, matcherError } from './guards';
import { resolveMode } from './modes';
import type { ArgsMode, ToolArgsComparison } from './types';

export type ArgsPredicate = (actual: unknown, expected: unknown) => boolean;

/**
 * Builds the argument comparison for a mode from the matcher context, so user
 * equality testers and asymmetric matchers (`expect.any(String)`, …) apply.
 * Subset semantics are those of `toMatchObject`: objects compare recursively by
 * the subset's keys; arrays need equal length, elements compared as subsets.
 */
export function argsPredicate(context: MatcherContext, mode: ArgsMode): ArgsPredicate {
  const { iterableEquality, subsetEquality } = context.utils;
  const exact = [...context.customTesters, iterableEquality];
  const subset = [...exact, subsetEquality];
  switch (resolveMode(mode)) {
    case 'ignore':
      return () => true;
    case 'exact':
      return (actual, expected) => context.equals(actual, expected, exact);
    case 'contains':
      return (actual, expected) => context.equals(actual, expected, subset);
    case 'within':
      return (actual, expected) => context.equals(expected, actual, subset);
  }
}

/**
 * The argument comparison per tool name: `argsBy[name]` where given (a mode, the argument
 * names to compare, or the caller's function), else `mode`.
 */
export function argsPredicateByTool(
  context: MatcherContext,
  mode: ArgsMode,
  argsBy: Readonly<Record<string, ToolArgsComparison>>,
): (tool: string) => ArgsPredicate {
  const fallback = argsPredicate(context, mode);
  const byTool = new Map<string, ArgsPredicate>();
  for (const [tool, how] of Object.entries(argsBy)) {
    if (typeof how === 'string') byTool.set(tool, argsPredicate(context, how));
    else if (typeof how === 'function')
      byTool.set(tool, (actual, expected) => {
        try {
          return Boolean(how(actual, expected));
        } catch (error) {
          throw matcherError(
            `options.argsBy.${tool} threw while comparing ${JSON.stringify(actual)} with ${JSON.stringify(expected)}: ${(error as Error)?.message ?? error}`,
          );
        }
      });
    else {
      const exact = argsPredicate(context, 'exact');
      const pick = (value: unknown) =>
        isPlainObject(value) ? Object.fromEntries(how.map((k) => [k, value[k]])) : value;
      byTool.set(tool, (actual, expected) => exact(pick(actual), pick(expected)));
    }
  }
  return (tool) => byTool.get(tool) ?? fallback;
}

/**
 * The part of `received` that `expected` talks about (keys it names, arrays of the
 * same length), so a diff against a subset expectation is not drowned in extra keys.
 */
export function trimToShape(received: unknown, expected: unknown): unknown {
  if (Array.isArray(received) && Array.isArray(expected) && received.length === expected.length) {
    return received.map((item, i) => trimToShape(item, expected[i]));
  }
  if (isPlainObject(received) && isPlainObject(expected)) {
    const trimmed: Record<string, unknown> = {};
    for (const key of Object.keys(expected)) {
      if (key in received) trimmed[key] = trimToShape(received[key], expected[key]);
    }
    return trimmed;
  }
  return received;
}
