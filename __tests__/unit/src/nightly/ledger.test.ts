/**
 * The ledger of an understudy live run: lines appended per process, read back whole; the spend
 * of its calls, and the budget refusing calls once a cap is reached.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  appendLedger,
  budgetOf,
  capReached,
  type LedgerLine,
  readLedger,
  spendOf,
} from '../../../../src/nightly/ledger';
import { budgetSpent, chargeCall, inLiveRun } from '../../../../src/nightly/live-calls';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const usage = (total: number) => ({
  inputTokens: total - 10,
  outputTokens: 10,
  totalTokens: total,
  cachedInputTokens: 0,
  reasoningTokens: 0,
});

describe('the ledger', () => {
  it('does nothing outside an understudy live run', () => {
    expect(inLiveRun({})).toBe(false);
    appendLedger({ kind: 'refused', repeat: 1, file: '/a.test.js' }, {});
    expect(readdirSync(dir)).toEqual([]);
  });

  it('appends lines to a file of the process and reads them all back', () => {
    const env = { UNDERSTUDY_LIVE_LEDGER: dir, UNDERSTUDY_LIVE_REPEAT: '2' };
    chargeCall(
      { file: '/a.test.js', test: 't', provider: 'openai', model: 'm', usage: usage(40) },
      0.01,
      env,
    );
    chargeCall(
      { file: '/a.test.js', test: 't', provider: 'openai', model: 'n', usage: usage(60) },
      undefined,
      env,
    );
    expect(readdirSync(dir)).toEqual([`${process.pid}.jsonl`]);
    const lines = readLedger(dir);
    expect(lines.map((l) => [l.kind, l.repeat])).toEqual([
      ['call', 2],
      ['call', 2],
    ]);
    expect(spendOf(lines)).toEqual({ tokens: 100, usd: 0.01, unpriced: ['n'] });
  });
});

describe('the budget', () => {
  it('reads the cap and says which one was reached', () => {
    expect(budgetOf({ UNDERSTUDY_LIVE_BUDGET: '{"tokens":100}' })).toEqual({ tokens: 100 });
    expect(budgetOf({ UNDERSTUDY_LIVE_BUDGET: 'nonsense' })).toBeUndefined();
    const spend = { tokens: 120, usd: 0.5, unpriced: [] };
    expect(capReached({ tokens: 100 }, spend)).toBe('120 tokens spent, the cap is 100');
    expect(capReached({ usd: 0.25 }, spend)).toBe('$0.5000 spent, the cap is $0.25');
    expect(capReached({ tokens: 200, usd: 1 }, spend)).toBeUndefined();
    // A money cap cannot be kept with calls it cannot price: it stops rather than spend blind.
    expect(capReached({ usd: 1 }, { ...spend, unpriced: ['local-model'] })).toBe(
      'the price table has no price for local-model, so the $1 cap cannot be kept (add the model to the prices option, or cap with --budget-tokens alone)',
    );
    expect(capReached({ tokens: 200 }, { ...spend, unpriced: ['local-model'] })).toBeUndefined();
  });

  it('refuses a call once the cap is reached, and notes the refusal for the report', () => {
    const env = { UNDERSTUDY_LIVE_LEDGER: dir, UNDERSTUDY_LIVE_BUDGET: '{"tokens":100}' };
    chargeCall(
      { file: '/a.test.js', test: 't', provider: 'openai', model: 'm', usage: usage(80) },
      undefined,
      env,
    );
    expect(budgetSpent('/a.test.js', 't', env)).toBeUndefined();
    chargeCall(
      { file: '/a.test.js', test: 't', provider: 'openai', model: 'm', usage: usage(40) },
      undefined,
      env,
    );
    expect(budgetSpent('/a.test.js', 't', env)).toContain(
      'budget of this understudy live run is spent (120 tokens spent',
    );
    expect(readLedger(dir).filter((l: LedgerLine) => l.kind === 'refused')).toEqual([
      { kind: 'refused', repeat: 1, file: '/a.test.js', test: 't' },
    ]);
  });
});
