/**
 * The names of the matchers jest-understudy adds to `expect`. A runner adapter registers them
 * before it loads the matchers themselves (./lazy.ts loads each on its first use), so a test file
 * that asserts nothing of an agent does not load them at all.
 */
export const MATCHER_NAMES = [
  'toHaveCalledToolSequence',
  'toHaveRequestedToolSequence',
  'toHaveCalledTool',
  'toHaveRequestedTool',
  'toHaveFinalMessage',
  'toHaveTerminalState',
  'toHavePassedDrill',
  'toMatchPromptSnapshot',
  'toHavePromptTokensBelow',
  'toOnlyCallTools',
  'toNeverCallTools',
  'toHaveStepCount',
  'toHaveSpans',
  'toHaveChangedFiles',
  'toHandleAllFaults',
  'toSatisfyJudge',
  'toHaveCostBelow',
  'toHaveLatencyBelow',
] as const;

type Matcher = (this: unknown, ...args: unknown[]) => unknown;

/**
 * The matchers as a runner's `expect.extend` takes them, by name: each hands its call to the matcher
 * of that name in `load()`, so the matchers (and the bundle they live in) load on the first assertion
 * that uses one. `context` gives the matchers the context they expect from the runner's.
 */
export function matchersByName(
  load: () => Record<string, Matcher>,
  context: (runner: unknown) => unknown = (runner) => runner,
): Record<string, Matcher> {
  return Object.fromEntries(
    MATCHER_NAMES.map((name) => [
      name,
      function (this: unknown, ...args: unknown[]) {
        return load()[name].apply(context(this), args);
      },
    ]),
  );
}
