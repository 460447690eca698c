/**
 * When an expected tool name matches no call, it is often a typo of one the run called or the
 * agent declared to the model (`lookup_ordr`): the failure then says which, instead of only
 * that nothing matched.
 */
import { suggestName } from '../src/file-format/suggest';
import { printExpected, printReceived } from './matcher-utils';
import type { RunLike } from './types';

/** The tool names the run's model requests declared, in order of first appearance. */
function declaredNames(run: RunLike): string[] {
  const names = new Set<string>();
  for (const call of run.modelCalls ?? []) {
    const tools = (call as { conversation?: { tools?: unknown } } | null)?.conversation?.tools;
    if (!Array.isArray(tools)) continue;
    for (const tool of tools) {
      const name = (tool as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && name !== '') names.add(name);
    }
  }
  return [...names];
}

/**
 * One line per expected name no call has: `did you mean "x"?` when a called or declared name
 * is close (typos and case only), else, when `listCalled`, the names the run did call.
 */
export function unknownToolNotes(run: RunLike, expected: readonly string[], listCalled = true): string[] {
  const called = [...new Set(run.toolCalls.map((call) => call.name))];
  const declared = declaredNames(run).filter((name) => !called.includes(name));
  const notes: string[] = [];
  for (const name of new Set(expected)) {
    if (called.includes(name)) continue;
    const meant = suggestName(name, called, {}) ?? suggestName(name, declared, {});
    if (meant !== undefined) {
      const how = called.includes(meant) ? 'called' : 'declared to the model, never called';
      notes.push(`No call is named ${printExpected(name)}: did you mean ${printReceived(meant)} (${how})?`);
    } else if (listCalled && called.length > 0) {
      notes.push(
        `No call is named ${printExpected(name)}; the run called ${called.map((n) => printReceived(n)).join(', ')}.`,
      );
    }
  }
  return notes;
}
