import type { MatcherContext, SyncExpectationResult } from 'expect';
import { matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printReceived,
  printWithType,
  RECEIVED_COLOR,
} from './matcher-utils';

interface CriterionLike {
  description: string;
  passed: boolean;
  found?: string;
}

interface TrialLike {
  trial: number;
  seed: number;
  verdict: string;
  reasons: readonly string[];
  criteria: readonly CriterionLike[];
}

/** What the matcher reads from a drill result (a DrillResult, or anything shaped like it). */
export interface DrillResultLike {
  drill?: string;
  verdict: 'passed' | 'failed' | (string & {});
  reasons: readonly string[];
  trials?: readonly TrialLike[];
  criteria?: readonly CriterionLike[];
  seed?: number;
}

function assertDrillResult(received: unknown, hint: string): asserts received is DrillResultLike {
  const r = received as Partial<DrillResultLike> | null;
  if (typeof r !== 'object' || r === null || typeof r.verdict !== 'string' || !Array.isArray(r.reasons)) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${RECEIVED_COLOR('received')} value must be the result of runDrills (with a verdict and reasons)`,
        printWithType('Received', received, printReceived),
      ),
    );
  }
}

/** One trial's criteria, one per line: ✓ held, ✗ failed with what was found instead. */
function criteriaLines(criteria: readonly CriterionLike[], extra: readonly string[]): string[] {
  const lines = criteria.map((c) =>
    c.passed
      ? `  ${EXPECTED_COLOR('✓')} ${c.description}`
      : // A multi-line finding (a file's diff) stays indented under its criterion.
        `  ${RECEIVED_COLOR('✗')} ${c.description}\n${RECEIVED_COLOR((c.found ?? 'did not hold').replace(/\n$/, '').replace(/^/gm, '      '))}`,
  );
  const failedCriteria = new Set(
    criteria.filter((c) => !c.passed).map((c) => `${c.description}: ${c.found ?? 'did not hold'}`),
  );
  for (const reason of extra)
    if (!failedCriteria.has(reason)) lines.push(`  ${RECEIVED_COLOR('✗')} ${reason}`);
  return lines;
}

/** Passes when the drill's verdict is "passed"; a failure explains it criterion by criterion. */
export function toHavePassedDrill(this: MatcherContext, received: unknown): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHavePassedDrill', undefined, '', {
    isNot: this.isNot,
    promise: this.promise,
  });
  assertDrillResult(received, hint);
  const pass = received.verdict === 'passed';
  const name = received.drill ? `the drill ${JSON.stringify(received.drill)}` : 'the drill';
  const seed = received.seed === undefined ? '' : ` (seed ${received.seed})`;
  return {
    pass,
    message: () => {
      if (pass) {
        const count = received.criteria?.length ?? 0;
        return `${hint}\n\nExpected ${name} not to pass, but it passed${seed}: all ${count} criteria held.`;
      }
      const trials = received.trials ?? [];
      const parts: string[] = [];
      if (trials.length === 0) {
        parts.push(...criteriaLines(received.criteria ?? [], received.reasons));
      } else {
        for (const trial of trials) {
          const heading =
            trials.length > 1
              ? `Trial ${trial.trial + 1} of ${trials.length} (seed ${trial.seed}): ${trial.verdict}`
              : undefined;
          if (heading) parts.push(heading);
          parts.push(...criteriaLines(trial.criteria, trial.reasons));
        }
      }
      return `${hint}\n\nExpected ${name} to pass, but it failed${seed}:\n\n${parts.join('\n')}`;
    },
  };
}
