/**
 * The nightly layer from the installed package, under Jest (CommonJS and ESM) and Vitest:
 * `understudy live --repeat N` against a stand-in provider on loopback that answers with
 * controlled variation (a call counter per model: every third question to `every-third` gets
 * lookup_refund; `drifting` moves on to find_order once the driver says so). Pass rates and
 * trajectory counts, the gates and their exit codes (a rate below the gate fails the command
 * though some runs passed; a live() test's own gate), the budget cap reached mid-run, drift
 * scored against the cassette and refreshed (only the drifted test's fixtures) on CI with --allow-ci, refused on CI without it,
 * and the report validated against its schema.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Ajv from 'ajv';
import { type Conversation, matchKeysOf, type NeutralReply } from '../../src/conversation';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { type InstalledRun, installedProject, RUNNERS, runInstalled } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

const KEYS = { openai: 'sk-test-NIGHTLY0123456789abcdefgh', anthropic: 'sk-ant-test-NIGHTLY0123456789' };
const usage = {
  inputTokens: 30,
  outputTokens: 10,
  totalTokens: 40,
  cachedInputTokens: 0,
  reasoningTokens: 0,
};

interface Stand {
  counters: Map<string, number>;
  drifted: boolean;
}

/** The stand-in's model: the model name says how it varies; a tool result gets a text answer. */
const brain =
  (stand: Stand) =>
  (conversation: Conversation, serial: number, idPrefix: string): NeutralReply => {
    const keys = matchKeysOf(conversation);
    const model = conversation.model;
    const text = (content: string): NeutralReply => ({
      content,
      toolCalls: [],
      finishReason: 'stop',
      usage,
      model,
    });
    if (keys.hasToolResult)
      return text(
        `Status: ${conversation.messages
          .filter((m) => m.role === 'tool')
          .map((m) => m.text)
          .join('; ')}`,
      );
    if (model === 'steady') return text(`You said: ${keys.userMessage}`);
    const orderId = /[A-Z]-\d{4}/.exec(keys.userMessage ?? '')?.[0] ?? 'none';
    const n = (stand.counters.get(model) ?? 0) + 1;
    stand.counters.set(model, n);
    const call = (name: string, args: object): NeutralReply => ({
      content: null,
      toolCalls: [{ id: `${idPrefix}n${serial}`, name, arguments: JSON.stringify(args) }],
      finishReason: 'tool_calls',
      usage,
      model,
    });
    if (model.startsWith('every-third'))
      return call(n % 3 === 0 ? 'lookup_refund' : 'lookup_order', { orderId });
    if (model === 'drifting' && stand.drifted) return call('find_order', { order_id: orderId });
    return call('lookup_order', { orderId });
  };

interface TestReport {
  name: string;
  runs: number;
  passed: number;
  stopped: number;
  notRun: number;
  passRate: number | null;
  minPassRate: number;
  gate: string;
  trajectories: Array<{ tools: string[]; terminal: string; count: number }>;
  latencyMs: { p50: number } | null;
  tokens: { p50: number; max: number } | null;
  usd: { p50: number; p90: number; max: number } | null;
  drift: {
    recorded: unknown;
    score: number | null;
    changes: string[];
    refreshed?: boolean;
    cassette: string;
  };
}
interface Report {
  exitCode: number;
  repetitions: number;
  budget: { spentTokens: number; spentUsd: number; reached?: string };
  tests: TestReport[];
  refresh?: { tests: string[]; exitCode: number };
}

const reportOf = (run: InstalledRun): Report =>
  JSON.parse(readFileSync(join(run.project, '.understudy', 'traces', 'live-report.json'), 'utf8'));
const testOf = (report: Report, name: string) => {
  const test = report.tests.find((t) => t.name === name);
  if (!test) throw new Error(`no ${name} in ${JSON.stringify(report.tests.map((t) => t.name))}`);
  return test;
};
type Fixture = { metadata: { test: string }; response: { toolCalls?: Array<{ name: string }> } };
const cassetteOf = (project: string): Fixture[] =>
  JSON.parse(readFileSync(join(project, 'cassettes', 'nightly-drift.case.js.cassette.json'), 'utf8'))
    .fixtures;
const out = (run: InstalledRun) => stripVTControlCharacters(`${run.stdout}\n${run.stderr}`);

describe.each(runnersOf(__filename))('the nightly layer from the installed package (%s)', (runner) => {
  const stand: Stand = { counters: new Map(), drifted: false };
  let upstream: FakeUpstream;
  const runs: Record<string, InstalledRun> = {};
  let recorded: Fixture[];
  let refused: string;
  let requestsBeforeRefusal = 0;

  beforeAll(async () => {
    upstream = await startFakeUpstream(KEYS, brain(stand));
    const understudy = {
      providers: {
        openai: { baseURL: `${upstream.url}/openai/v1` },
        anthropic: { baseURL: `${upstream.url}/anthropic` },
      },
      cassetteDir: 'cassettes',
    };
    const env = (extra: Record<string, string | undefined> = {}) => ({
      CI: undefined,
      NIGHTLY_UPSTREAM: upstream.url,
      OPENAI_API_KEY: KEYS.openai,
      ANTHROPIC_API_KEY: KEYS.anthropic,
      ...extra,
    });
    const base = { understudy, ...RUNNERS[runner] };
    runs.record = await runInstalled({
      ...base,
      cases: ['nightly-drift.case.js'],
      cli: ['record'],
      env: env(),
    });
    recorded = cassetteOf(runs.record.project);
    stand.drifted = true;
    runs.gated = await runInstalled({
      ...base,
      project: runs.record.project,
      cases: ['nightly-repeat.case.js', 'nightly-gate.case.js', 'nightly-drift.case.js'],
      // A nightly job: CI is set, and --allow-ci lets the live runs and the refresh's record run go.
      cli: ['live', '--repeat', '3', '--min-pass-rate', '0.9', '--refresh-above', '0.1', '--allow-ci'],
      env: env({ CI: 'true' }),
    });
    runs.passing = await runInstalled({
      ...base,
      cases: ['nightly-repeat.case.js'],
      cli: ['live', '--repeat', '3', '--min-pass-rate', '0.6'],
      env: env(),
    });
    runs.budget = await runInstalled({
      ...base,
      cases: ['nightly-budget.case.js'],
      cli: ['live', '--repeat', '4', '--budget-tokens', '100', '--allow-ci'],
      env: env({ CI: 'true' }),
    });
    // $1000 per million tokens: each call of 40 tokens costs $0.04.
    const prices = { openai: { 'steady-tool': { input: 1000, output: 1000 } } };
    runs.money = await runInstalled({
      ...base,
      understudy: { ...understudy, prices },
      cases: ['nightly-budget.case.js'],
      cli: ['live', '--repeat', '4', '--budget-usd', '0.1'],
      env: env(),
    });
    requestsBeforeRefusal = upstream.requests.length;
    refused = await runInstalled({
      ...base,
      project: runs.record.project,
      cases: ['nightly-drift.case.js'],
      cli: ['live', '--repeat', '2', '--refresh-above', '0.1'],
      env: env({ CI: 'true' }),
    }).then(
      (run) => `(exit ${run.code}):\n${run.stderr}`,
      (error: Error) => error.message,
    );
  }, 600_000);

  afterAll(() => upstream?.close());

  it('repeats each test, with its pass rate and its distinct trajectories counted', () => {
    const report = reportOf(runs.gated);
    expect(report.repetitions).toBe(3);
    const order = testOf(report, 'finds the order');
    expect([order.runs, order.passed, order.passRate]).toEqual([3, 2, 0.6667]);
    expect(order.trajectories).toEqual([
      { tools: ['lookup_order'], terminal: 'stop', count: 2 },
      { tools: ['lookup_refund'], terminal: 'stop', count: 1 },
    ]);
    // Two calls of 40 tokens each run; the latency is the test's wall time.
    expect(order.tokens).toEqual({ p50: 80, p90: 80, max: 80 });
    expect(order.latencyMs?.p50).toBeGreaterThan(0);
    const greeting = testOf(report, 'answers a greeting');
    expect([greeting.passed, greeting.gate]).toEqual([3, 'passed']);
    expect(greeting.trajectories).toEqual([{ tools: [], terminal: 'stop', count: 3 }]);
    expect(out(runs.gated)).toMatch(
      /finds the order \(nightly-repeat\.case\.js\): 66\.7% \(2\/3\) FAILED, below 90%/,
    );
    expect(out(runs.gated)).toContain('2× lookup_order ⇒ stop');
  });

  it('must fail: a pass rate below --min-pass-rate fails the command though two runs in three passed', () => {
    expect(runs.gated.code).toBe(1);
    expect(reportOf(runs.gated).exitCode).toBe(1);
    expect(testOf(reportOf(runs.gated), 'finds the order').gate).toBe('failed');
    // The same test at the same rate passes a gate of 0.6.
    expect(runs.passing.code).toBe(0);
    const order = testOf(reportOf(runs.passing), 'finds the order');
    expect([order.passRate, order.gate]).toEqual([0.6667, 'passed']);
  });

  it("a live() test's own minPassRate gates it over --min-pass-rate", () => {
    const gated = testOf(reportOf(runs.gated), 'finds the order, gated at one half');
    expect([gated.runs, gated.passed, gated.minPassRate, gated.gate]).toEqual([3, 2, 0.5, 'passed']);
  });

  it('scores drift from the cassette and re-records only the drifted test', () => {
    const report = reportOf(runs.gated);
    const drifted = testOf(report, 'tracks the order');
    expect(drifted.drift.recorded).toEqual({ tools: ['lookup_order'], terminal: 'stop' });
    expect(drifted.drift.score).toBe(0.55);
    expect(drifted.drift.changes).toEqual([
      'lookup_order not called in 3 of 3 runs',
      'find_order called in 3 of 3 runs',
    ]);
    expect(drifted.drift.refreshed).toBe(true);
    const steady = testOf(report, 'greets');
    expect([steady.drift.score, steady.drift.changes, steady.drift.refreshed]).toEqual([0, [], undefined]);
    expect(report.refresh).toEqual(expect.objectContaining({ tests: ['tracks the order'], exitCode: 0 }));
    // The cassette now holds the new path for the drifted test; the other test's fixtures are as they were.
    const after = cassetteOf(runs.record.project);
    const of = (fixtures: Fixture[], test: string) => fixtures.filter((f) => f.metadata.test === test);
    expect(of(after, 'greets')).toEqual(of(recorded, 'greets'));
    expect(
      of(recorded, 'tracks the order').flatMap((f) => f.response.toolCalls?.map((c) => c.name) ?? []),
    ).toEqual(['lookup_order']);
    expect(
      of(after, 'tracks the order').flatMap((f) => f.response.toolCalls?.map((c) => c.name) ?? []),
    ).toEqual(['find_order']);
    // Tests with no cassette are scored as such, and nothing is written for them.
    expect(testOf(report, 'finds the order').drift).toEqual(
      expect.objectContaining({ score: null, changes: ['no cassette'] }),
    );
    expect(existsSync(join(runs.record.project, 'cassettes', 'nightly-repeat.case.js.cassette.json'))).toBe(
      false,
    );
  });

  it('stops at the budget cap mid-run and says which runs did not run and what was spent', () => {
    const report = reportOf(runs.budget);
    expect(runs.budget.code).toBe(3);
    expect(report.budget).toEqual(
      expect.objectContaining({ spentTokens: 120, reached: '120 tokens spent, the cap is 100' }),
    );
    const test = testOf(report, 'finds the order within budget');
    // The first run passed; the second was stopped before its second call; two never started.
    expect([test.runs, test.passed, test.stopped, test.notRun]).toEqual([1, 1, 1, 2]);
    expect(report.repetitions).toBe(2);
    expect(out(runs.budget)).toContain('the budget stopped the run: 120 tokens spent, the cap is 100');
    expect(out(runs.budget)).toContain(
      'not run: finds the order within budget (nightly-budget.case.js), 1 run stopped, 2 runs never started',
    );
    expect(out(runs.budget)).toContain('LIVE_BUDGET_SPENT');
  });

  it('stops at a money cap, from the price table with the prices option over it', () => {
    const report = reportOf(runs.money);
    expect(runs.money.code).toBe(3);
    expect(report.budget).toEqual(
      expect.objectContaining({
        usd: 0.1,
        spentTokens: 120,
        spentUsd: 0.12,
        unpriced: [],
        reached: '$0.1200 spent, the cap is $0.1',
      }),
    );
    const test = testOf(report, 'finds the order within budget');
    expect([test.runs, test.stopped, test.notRun]).toEqual([1, 1, 2]);
    expect(test.usd).toEqual({ p50: 0.08, p90: 0.08, max: 0.08 });
    expect(out(runs.money)).toContain('spent 120 tokens, $0.1200');
  });

  it('refuses to run or refresh on CI without --allow-ci, before anything runs', () => {
    expect(refused).toContain('(exit 2)');
    expect(refused).toContain('understudy live: CI is set (CI="true")');
    expect(refused).toContain(
      '--refresh-above re-records cassettes, which CI never does unless --allow-ci says so',
    );
    expect(upstream.requests.length).toBe(requestsBeforeRefusal);
  });

  it('writes a report that its schema validates, and an HTML page', () => {
    const schema = JSON.parse(
      readFileSync(
        join(installedProject(), 'node_modules', 'jest-understudy', 'schemas', 'live-report.schema.json'),
        'utf8',
      ),
    );
    const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
    for (const run of [runs.gated, runs.passing, runs.budget, runs.money])
      expect(validate(reportOf(run))).toBe(true);
    const broken = { ...reportOf(runs.gated), tests: [{ ...reportOf(runs.gated).tests[0], passRate: 2 }] };
    expect(validate(broken)).toBe(false);
    const page = readFileSync(join(runs.gated.project, '.understudy', 'traces', 'live-report.html'), 'utf8');
    expect(page).toContain('finds the order');
    expect(page).toContain('drift 0.55');
    expect(page).toContain('default-src &#39;none&#39;'.replace(/&#39;/g, "'"));
  });
});
