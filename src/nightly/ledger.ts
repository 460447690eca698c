/**
 * The ledger of an `understudy live` run: what each repetition's test files did, appended as
 * JSON lines to a folder the command names (UNDERSTUDY_LIVE_LEDGER), one file per process so
 * parallel workers never share a file. The recording appends each call the real provider
 * answered (its usage, for the budget) and each call the budget refused; the runner adapter
 * appends each test's outcome and trajectory; `live()` appends a test's own pass-rate gate.
 * The command reads it back after each repetition. Nothing here runs unless the variable is set.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Trajectory } from './trajectory';

export const LEDGER_VARIABLE = 'UNDERSTUDY_LIVE_LEDGER';
export const REPEAT_VARIABLE = 'UNDERSTUDY_LIVE_REPEAT';
export const BUDGET_VARIABLE = 'UNDERSTUDY_LIVE_BUDGET';

export interface Tokens {
  input: number;
  output: number;
  total: number;
}

interface Line {
  /** The repetition (1-based). */
  repeat: number;
  /** The test file, absolute. */
  file: string;
  test?: string;
}

/** A call the real provider answered. */
export interface CallLine extends Line {
  kind: 'call';
  provider: string;
  model: string;
  tokens: Tokens;
  /** What it cost in US dollars, from the price table; absent when the table has no price for the model. */
  usd?: number;
}

/** A call the budget refused: its test did not run to its end. */
export interface RefusedLine extends Line {
  kind: 'refused';
}

/** A test that ended. */
export interface TestLine extends Line {
  kind: 'test';
  test: string;
  status: 'passed' | 'failed';
  durationMs: number;
  trajectory: Trajectory;
  /** The test file's cassette (what replay loads). */
  cassette: string;
  /** Where the test file's traces go. */
  traceDir: string;
}

/** A test's own pass-rate gate (`live(name, fn, { minPassRate })`). */
export interface GateLine extends Line {
  kind: 'gate';
  test: string;
  minPassRate: number;
}

export type LedgerLine = CallLine | RefusedLine | TestLine | GateLine;

/** The ledger folder of this process's run, when an `understudy live` run set one. */
export function ledgerFolder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env[LEDGER_VARIABLE];
  return dir ? dir : undefined;
}

export function repeatOf(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[REPEAT_VARIABLE]);
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** Appends a line to this process's file in the ledger folder (no-op without one). */
export function appendLedger(line: LedgerLine, env: NodeJS.ProcessEnv = process.env): void {
  const dir = ledgerFolder(env);
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}

/** Every line of the ledger folder, in no particular order across processes. */
export function readLedger(dir: string): LedgerLine[] {
  if (!existsSync(dir)) return [];
  const out: LedgerLine[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.jsonl')) continue;
    for (const text of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      try {
        out.push(JSON.parse(text) as LedgerLine);
      } catch {
        // a line a killed worker left half-written
      }
    }
  }
  return out;
}

/** The cap of an `understudy live` run (`--budget-tokens`, `--budget-usd`). */
export interface BudgetCap {
  tokens?: number;
  usd?: number;
}

export interface Spend {
  tokens: number;
  /** US dollars, for the calls the price table has a price for. */
  usd: number;
  /** Models the price table has no price for (their calls cost nothing in `usd`). */
  unpriced: string[];
}

/** What the calls of `lines` spent (all of them, or those `only` keeps). */
export function spendOf(lines: readonly LedgerLine[], only: (line: CallLine) => boolean = () => true): Spend {
  let tokens = 0;
  let usd = 0;
  const unpriced = new Set<string>();
  for (const line of lines) {
    if (line.kind !== 'call' || !only(line)) continue;
    tokens += line.tokens.total;
    if (line.usd === undefined) unpriced.add(line.model);
    else usd += line.usd;
  }
  return { tokens, usd, unpriced: [...unpriced].sort() };
}

export function budgetOf(env: NodeJS.ProcessEnv = process.env): BudgetCap | undefined {
  const text = env[BUDGET_VARIABLE];
  if (!text) return undefined;
  try {
    const cap = JSON.parse(text) as BudgetCap;
    return typeof cap === 'object' && cap !== null ? cap : undefined;
  } catch {
    return undefined;
  }
}

/** Which cap the spend reached, in words; undefined while under both. */
export function capReached(cap: BudgetCap, spend: Spend): string | undefined {
  if (cap.tokens !== undefined && spend.tokens >= cap.tokens)
    return `${spend.tokens} tokens spent, the cap is ${cap.tokens}`;
  if (cap.usd !== undefined && spend.usd >= cap.usd)
    return `$${spend.usd.toFixed(4)} spent, the cap is $${cap.usd}`;
  // A money cap that cannot price a call cannot be kept: it stops rather than spend blind.
  if (cap.usd !== undefined && spend.unpriced.length > 0)
    return `the price table has no price for ${spend.unpriced.join(', ')}, so the $${cap.usd} cap cannot be kept (add the model to the prices option, or cap with --budget-tokens alone)`;
  return undefined;
}
