/**
 * The matchers as `expect.extend` sees them, each loading its implementation on first
 * use: the preset registers them in every test file, and most files call only a few.
 */
import type { matchers as Matchers } from './index';
import { withCallerUtils } from './matcher-utils';
import type { MATCHER_NAMES } from './names';
import { withNoteOnFailure } from './on-failure';

type Name = keyof typeof Matchers;
// The list the adapters register is every matcher, no more: a name missing there fails to compile.
type Listed = (typeof MATCHER_NAMES)[number];
const listsEveryMatcher: [Exclude<Name, Listed> | Exclude<Listed, Name>] extends [never] ? true : false =
  true;
void listsEveryMatcher;
type Impl = (this: unknown, ...args: unknown[]) => unknown;

const modules: Record<Name, () => Record<string, Impl>> = {
  toHaveCalledToolSequence: () => require('./tool-sequence'),
  toHaveRequestedToolSequence: () => require('./tool-sequence'),
  toHaveCalledTool: () => require('./called-tool'),
  toHaveRequestedTool: () => require('./called-tool'),
  toHaveFinalMessage: () => require('./final-message'),
  toHaveTerminalState: () => require('./terminal-state'),
  toHavePassedDrill: () => require('./drill'),
  toMatchPromptSnapshot: () => require('./prompt'),
  toHavePromptTokensBelow: () => require('./prompt'),
  toOnlyCallTools: () => require('./permissions'),
  toNeverCallTools: () => require('./permissions'),
  toHaveStepCount: () => require('./step-count'),
  toHaveSpans: () => require('./spans'),
  toHaveChangedFiles: () => require('./changed-files'),
  toHandleAllFaults: () => require('./handle-faults'),
  toSatisfyJudge: () => require('./judge'),
  toHaveCostBelow: () => require('./budgets'),
  toHaveLatencyBelow: () => require('./budgets'),
};

const runOutcomeNote = (received: unknown): string | undefined =>
  (require('./run-outcome') as typeof import('./run-outcome')).runOutcomeNote(received);

/** Matchers whose `received` is not a run: no note of how a run ended. */
const NOT_RUNS: ReadonlySet<Name> = new Set(['toHavePassedDrill', 'toHandleAllFaults', 'toSatisfyJudge']);

export const lazyMatchers = Object.fromEntries(
  (Object.keys(modules) as Name[]).map((name) => {
    const load = function (this: unknown, ...args: unknown[]) {
      return modules[name]()[name].apply(this, args);
    };
    return [name, withCallerUtils(NOT_RUNS.has(name) ? load : withNoteOnFailure(load, runOutcomeNote))];
  }),
) as unknown as typeof Matchers;
