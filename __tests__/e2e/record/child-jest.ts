import { type ChildRun, runJest as runChildJest } from '../../support/child-jest';

export { root } from '../../support/child-jest';
export type ChildResult = ChildRun;

/** Runs __tests__/e2e/record/cases/<case> files in one child Jest worker, traces off. */
export function runJest(options: {
  cases: string[];
  env?: Record<string, string | undefined>;
  understudy?: Record<string, unknown>;
  args?: string[];
  /** Add the repository's reporter (its summary goes to stderr). */
  reporter?: boolean;
}): Promise<ChildRun> {
  return runChildJest({
    ...(options.reporter && { reporter: true }),
    testMatch: options.cases.map((c) => `__tests__/e2e/record/cases/${c}`),
    env: options.env,
    understudy: { traces: 'off', ...options.understudy },
    args: ['--runInBand', ...(options.args ?? [])],
  });
}
