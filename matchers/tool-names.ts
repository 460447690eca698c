/**
 * When an expected tool name matches no call, it is often a typo of one the run called or the
 * agent declared to the model (`lookup_ordr`): the failure then says which, instead of only
 * that nothing matched. A forbidden name is worse: a typo there (`delete_acount`) forbids
 * nothing, and the assertion passes while the agent runs the real tool, so a forbidden name
 * that is no tool of the run or the world but is close to one is refused outright.
 */
import { suggestName } from '../src/file-format/suggest';
import { getContext, hasEnvironment } from '../src/sandbox/runtime';
import { matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printExpected,
  printReceived,
  printWithType,
} from './matcher-utils';
import { ran } from './outcome';
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

/** The tool names this test file's world declares (each operation's `toolNames`); none outside the environment. */
function worldNames(): string[] {
  if (!hasEnvironment()) return [];
  try {
    const operations = getContext().world.loaded?.operations;
    return operations ? [...operations.values()].flatMap((op) => [...op.toolNames]) : [];
  } catch {
    return [];
  }
}

export interface NoteOptions {
  /** The matcher counts only the calls the agent ran (a called matcher). Default true. */
  ran?: boolean;
  /** With nothing close, list the names that were called. Default true. */
  listCalled?: boolean;
}

/**
 * One line per expected name no call has: `did you mean "x"?` when a called or declared name
 * is close (typos and case only), what became of it when the model requested or was offered
 * exactly that name, else, when `listCalled`, the names the run did call.
 */
export function unknownToolNotes(
  run: RunLike,
  expected: readonly string[],
  options: NoteOptions = {},
): string[] {
  const onlyRan = options.ran ?? true;
  const listCalled = options.listCalled ?? true;
  const calls = onlyRan ? run.toolCalls.filter((call) => ran(run, call)) : run.toolCalls;
  const called = [...new Set(calls.map((call) => call.name))];
  const requested = [...new Set(run.toolCalls.map((call) => call.name))].filter((n) => !called.includes(n));
  const declared = declaredNames(run).filter((name) => !called.includes(name) && !requested.includes(name));
  const notes: string[] = [];
  for (const name of new Set(expected)) {
    if (called.includes(name)) continue;
    if (requested.includes(name)) {
      notes.push(
        `No call to ${printExpected(name)} ran: the model requested it, but the agent never ran it (no result went back, no world operation served it).`,
      );
      continue;
    }
    if (declared.includes(name)) {
      notes.push(
        `No call is named ${printExpected(name)}: the run offered it to the model, which never asked for it.`,
      );
      continue;
    }
    const meant =
      suggestName(name, called, {}) ?? suggestName(name, requested, {}) ?? suggestName(name, declared, {});
    if (meant !== undefined) {
      const how = called.includes(meant)
        ? 'called'
        : requested.includes(meant)
          ? 'requested by the model, never run'
          : 'declared to the model, never called';
      notes.push(`No call is named ${printExpected(name)}: did you mean ${printReceived(meant)} (${how})?`);
    } else if (listCalled && called.length > 0) {
      notes.push(
        `No call is named ${printExpected(name)}; the run called ${called.map((n) => printReceived(n)).join(', ')}.`,
      );
    }
  }
  return notes;
}

/**
 * Throws a matcher error (`.not` cannot turn it into a pass) for a name that no request of the
 * run offered, no call used and the world does not declare, but that is close to one of those:
 * forbidding it would check nothing.
 */
export function refuseProbableTypos(
  hint: string,
  run: RunLike,
  names: ReadonlyArray<{ name: string; label: string }>,
): void {
  const used = [...new Set(run.toolCalls.map((call) => call.name))];
  const offered = declaredNames(run);
  const known = new Set([...used, ...offered]);
  const unknown = names.filter(({ name }) => !known.has(name));
  if (unknown.length === 0) return;
  const world = worldNames();
  // Without the tools the agent offered or the world declares, nothing says what a tool of this run is.
  if (offered.length === 0 && world.length === 0) return;
  const candidates = [...new Set([...used, ...offered, ...world])];
  for (const { name, label } of unknown) {
    if (world.includes(name)) continue;
    const meant = suggestName(name, candidates, {});
    if (meant === undefined) continue;
    const where = [
      offered.includes(meant) && 'offered to the model',
      used.includes(meant) &&
        `requested${run.toolCalls.some((c) => c.name === meant && ran(run, c)) ? ' and run' : ''} in this run`,
      world.includes(meant) && 'declared by the world',
    ]
      .filter(Boolean)
      .join(', ');
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR(label)} ${printExpected(name)} is no tool of this run: no request offered it, no call used it and the world declares no such tool, so it forbids nothing. It is close to ${printReceived(meant)} (${where}): a typo?`,
        printWithType(label, name, printExpected),
      ),
    );
  }
}
