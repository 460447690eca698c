/**
 * What a live-mode test file adds to the ledger of an `understudy live` run (./ledger.ts): each
 * call the real provider answered with its tokens, a call refused once the run's budget is
 * spent, and each test's outcome with its trajectory. Called only when the run set a ledger.
 */
import type { NeutralUsage } from '../conversation';
import type { TestEvidence } from '../trace/evidence';
import {
  appendLedger,
  budgetOf,
  capReached,
  ledgerFolder,
  readLedger,
  repeatOf,
  spendOf,
  type TestLine,
} from './ledger';
import { trajectoryOf } from './trajectory';

/** Whether this process is a repetition of an `understudy live` run. */
export const inLiveRun = (env: NodeJS.ProcessEnv = process.env): boolean => ledgerFolder(env) !== undefined;

/**
 * Why the next call may not go to the provider: the run's budget is spent (tokens, or money
 * from the price table). Undefined while it is not, or outside an `understudy live` run with a cap.
 */
export function budgetSpent(file: string, test: string | undefined, env = process.env): string | undefined {
  const dir = ledgerFolder(env);
  const cap = budgetOf(env);
  if (!dir || !cap) return undefined;
  const reached = capReached(cap, spendOf(readLedger(dir)));
  if (!reached) return undefined;
  appendLedger({ kind: 'refused', repeat: repeatOf(env), file, ...(test !== undefined && { test }) }, env);
  return (
    `jest-understudy: the budget of this understudy live run is spent (${reached}), so this model call was not sent ` +
    'to the provider and the test stops here; understudy live reports it as not run. Raise --budget-tokens or --budget-usd to run more.'
  );
}

/** Notes a call the provider answered: its model and tokens, and its price when the table has one. */
export function chargeCall(
  call: { file: string; test: string | undefined; provider: string; model: string; usage: NeutralUsage },
  usd: number | undefined,
  env = process.env,
): void {
  const { usage } = call;
  appendLedger(
    {
      kind: 'call',
      repeat: repeatOf(env),
      file: call.file,
      ...(call.test !== undefined && { test: call.test }),
      provider: call.provider,
      model: call.model,
      tokens: { input: usage.inputTokens, output: usage.outputTokens, total: usage.totalTokens },
      ...(usd !== undefined && { usd }),
    },
    env,
  );
}

export interface LiveTestFacts {
  file: string;
  test: string;
  failed: boolean;
  startedAt: number;
  endedAt: number;
  cassette: string;
  traceDir: string;
}

/** Notes a test that ended: passed or failed, how long it took, and the trajectory of its model calls. */
export function noteLiveTest(
  facts: LiveTestFacts,
  evidence: () => TestEvidence | undefined,
  env = process.env,
): void {
  if (!inLiveRun(env)) return;
  const seen = evidence();
  const calls = [...(seen?.runs.flatMap((r) => r.modelCalls) ?? []), ...(seen?.looseCalls ?? [])]
    .filter((c, i, all) => all.findIndex((o) => o.index === c.index) === i)
    .sort((a, b) => a.index - b.index);
  const line: TestLine = {
    kind: 'test',
    repeat: repeatOf(env),
    file: facts.file,
    test: facts.test,
    status: facts.failed ? 'failed' : 'passed',
    durationMs: Math.max(0, facts.endedAt - facts.startedAt),
    trajectory: trajectoryOf(
      calls.map((c) => ({ reply: c.response, error: c.error, cut: c.cut !== undefined })),
    ),
    cassette: facts.cassette,
    traceDir: facts.traceDir,
  };
  appendLedger(line, env);
}

/** Notes a test's own pass-rate gate, from `live(name, fn, { minPassRate })`. */
export function noteGate(file: string, test: string, minPassRate: number, env = process.env): void {
  if (!inLiveRun(env)) return;
  appendLedger({ kind: 'gate', repeat: repeatOf(env), file, test, minPassRate }, env);
}
