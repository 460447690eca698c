/**
 * The judge and the budgets from the installed package, under Jest (CommonJS and ESM) and
 * Vitest: a judge's verdict recorded against a stand-in provider and replayed with it gone; a
 * changed rubric reported stale (and failing under strictCassettes); a recorded "fail" verdict
 * failing the test that asserts the opposite; a replay with no recorded verdict failing with the
 * command that records it; a hand-written judge fixture; cost and latency budgets passing and
 * failing; the matchers' types in a TypeScript consumer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import {
  fileOf,
  freshFolder,
  type InstalledProjectRun,
  type InstalledRun,
  installedProject,
  messageOf,
  RUNNERS,
  runInstalled,
  runInstalledProjects,
  statuses,
} from '../support/installed';
import { runnersOf } from '../support/runner-tier';

const KEYS = { openai: 'sk-test-INSTALLEDJUDGE0123456789abcd', anthropic: 'unused', gemini: 'unused' };
const RECORDED = 'judge-record.case.js';
const NEW_RUBRIC = 'The answer must mention "refund"';
const cassetteOf = (project: string) =>
  JSON.parse(readFileSync(join(project, 'cassettes', `${RECORDED}.cassette.json`), 'utf8'));
const output = (run: InstalledRun) =>
  stripVTControlCharacters(
    [run.stderr, ...run.files.flatMap((f) => [f.message, ...f.tests.flatMap((t) => t.failureMessages)])].join(
      '\n',
    ),
  );
const plain = (file: ChildFile, title: string) => stripVTControlCharacters(messageOf(file, title));

describe.each(runnersOf(__filename))(
  'the judge and the budgets from the installed package (%s)',
  (runner) => {
    let upstream: FakeUpstream;
    const runs: Record<string, InstalledRun> = {};
    const offlineRuns: Record<string, InstalledProjectRun> = {};
    let liveRequests = 0;
    const flippedTraces: string[] = [];
    let before: any;

    beforeAll(async () => {
      upstream = await startFakeUpstream(KEYS);
      const base = `${upstream.url}/openai/v1`;
      const understudy = {
        providers: { openai: { baseURL: base } },
        cassetteDir: 'cassettes',
        judge: { provider: 'openai', model: 'gpt-4o-mini', baseURL: base },
      };
      const runnerOptions = RUNNERS[runner];
      const env = (extra: Record<string, string | undefined> = {}) => ({
        CI: undefined,
        JUDGE_UPSTREAM: upstream.url,
        ...extra,
      });
      runs.record = await runInstalled({
        cases: [RECORDED],
        understudy,
        ...runnerOptions,
        cli: ['record'],
        env: env({ OPENAI_API_KEY: KEYS.openai }),
      });
      const project = runs.record.project;
      const recorded = upstream.requests.length;
      runs.live = await runInstalled({
        cases: [RECORDED],
        understudy,
        ...runnerOptions,
        cli: ['live'],
        env: env({ OPENAI_API_KEY: KEYS.openai }),
      });
      liveRequests = upstream.requests.length - recorded;
      const judgedBefore = upstream.requests.length;
      await upstream.close();
      const replay = (extra: Record<string, string | undefined> = {}) =>
        runInstalled({
          cases: [RECORDED],
          understudy,
          ...runnerOptions,
          project,
          env: env({ CI: 'true', ...extra }),
        });
      runs.replay = await replay();
      runs.otherJudge = await replay({ JUDGE_MODEL: 'gpt-4.1-mini', JUDGE_TEXT: 'Your refund was sent.' });
      runs.flipped = await replay({ JUDGE_FLIP: '1' });
      // The next run in this folder replaces them.
      const traces = join(project, '.understudy', 'traces', RECORDED);
      for (const ext of ['trace.json', 'trace.html'])
        flippedTraces.push(readFileSync(join(traces, `judges any text.${ext}`), 'utf8'));
      runs.stale = await replay({ JUDGE_RUBRIC: NEW_RUBRIC });
      runs.strict = await replay({ JUDGE_RUBRIC: NEW_RUBRIC, UNDERSTUDY_STRICT_CASSETTES: '1' });
      expect(upstream.requests.length).toBe(judgedBefore);

      // `understudy record --stale` re-records the stale verdict's test only, against a provider up again.
      before = cassetteOf(project);
      const again = await startFakeUpstream(KEYS);
      const moved = {
        ...understudy,
        providers: { openai: { baseURL: `${again.url}/openai/v1` } },
        judge: { ...understudy.judge, baseURL: `${again.url}/openai/v1` },
      };
      runs.rerecord = await runInstalled({
        cases: [RECORDED],
        understudy: moved,
        ...runnerOptions,
        project,
        cli: ['record', '--stale'],
        env: {
          CI: undefined,
          JUDGE_UPSTREAM: again.url,
          OPENAI_API_KEY: KEYS.openai,
          JUDGE_RUBRIC: NEW_RUBRIC,
        },
      });
      await again.close();
      runs.rereplay = await runInstalled({
        cases: [RECORDED],
        understudy: moved,
        ...runnerOptions,
        project,
        env: {
          CI: 'true',
          JUDGE_UPSTREAM: again.url,
          JUDGE_RUBRIC: NEW_RUBRIC,
          UNDERSTUDY_STRICT_CASSETTES: '1',
        },
      });
      // The replays with no cassette, each a project of one child: the process options agree.
      const offline = {
        understudy: { timeScale: 0, judge: { provider: 'openai', model: 'gpt-4o-mini' } },
      };
      const batch = await runInstalledProjects(
        {
          missing: { cases: ['judge-missing.case.js'], ...offline },
          budgets: { cases: ['judge-budgets.case.js'], ...offline },
          overBudget: {
            cases: ['judge-budgets.case.js'],
            ...offline,
            files: { 'judge-budget-fail': '' },
          },
        },
        { ...runnerOptions, env: { CI: 'true' } },
      );
      for (const [name, run] of Object.entries(batch)) offlineRuns[name] = run;
    }, 300_000);

    afterAll(() => upstream?.close());

    it("records the judge's verdict in the test's cassette, apart from the agent's calls", () => {
      expect(statuses(fileOf(runs.record, RECORDED))).toEqual({
        'a polite answer satisfies the judge': 'passed',
        'judges any text': 'passed',
      });
      // As recorded (`understudy record --stale` rewrites it below).
      const cassette = before;
      const judged = cassette.fixtures.filter((f: any) => f.match.context === 'jest-understudy-judge');
      expect(judged.map((f: any) => [f.metadata.test, JSON.parse(f.response.content).verdict])).toEqual([
        ['a polite answer satisfies the judge', 'pass'],
        ['judges any text', 'fail'],
      ]);
      expect(judged[0].metadata.request.model).toBe('gpt-4o-mini');
      expect(judged[0].metadata.request.system).toContain(
        '<rubric>\nThe answer must mention "thanks"\n</rubric>',
      );
      expect(cassette.fixtures.filter((f: any) => f.match.context === undefined)).toHaveLength(1);
    });

    it('asks the real judge in live mode, and writes nothing', () => {
      expect(statuses(fileOf(runs.live, RECORDED))).toEqual({
        'a polite answer satisfies the judge': 'passed',
        'judges any text': 'passed',
      });
      // The agent's call and two judge calls went to the provider.
      expect(liveRequests).toBe(3);
      expect(existsSync(join(runs.live.project, 'cassettes'))).toBe(false);
    });

    it('replays the verdicts with the provider gone, on CI, with no key', () => {
      expect(statuses(fileOf(runs.replay, RECORDED))).toEqual({
        'a polite answer satisfies the judge': 'passed',
        'judges any text': 'passed',
      });
      expect(output(runs.replay)).not.toContain('stale cassette:');
    });

    it('reports a verdict stale when the rubric changed, and fails it under strictCassettes', () => {
      expect(statuses(fileOf(runs.stale, RECORDED))['a polite answer satisfies the judge']).toBe('passed');
      expect(output(runs.stale)).toMatch(
        /stale cassette: .* recorded in test "a polite answer satisfies the judge" answered the judge's openai\.chat request .*system prompt/s,
      );
      expect(output(runs.stale)).toContain('understudy record --stale');
      expect(statuses(fileOf(runs.strict, RECORDED))).toEqual({
        'a polite answer satisfies the judge': 'failed',
        'judges any text': 'passed',
      });
      expect(output(runs.strict)).toContain('[CASSETTE_STALE]');
    });

    it('re-records a stale verdict with `understudy record --stale`, and its test alone', () => {
      expect(output(runs.rerecord)).toContain('understudy record: running');
      expect(statuses(fileOf(runs.rerecord, RECORDED))['a polite answer satisfies the judge']).toBe('passed');
      const after = cassetteOf(runs.rerecord.project);
      const judgeOf = (cassette: any, test: string) =>
        cassette.fixtures.find(
          (f: any) => f.match.context === 'jest-understudy-judge' && f.metadata.test === test,
        );
      expect(judgeOf(after, 'a polite answer satisfies the judge').metadata.request.system).toContain(
        `<rubric>\n${NEW_RUBRIC}\n</rubric>`,
      );
      // The other test's verdict was not stale: kept as it was.
      expect(judgeOf(after, 'judges any text')).toEqual(judgeOf(before, 'judges any text'));
      // Replayed, strict, with the provider gone: nothing is stale any more.
      expect(statuses(fileOf(runs.rereplay, RECORDED))).toEqual({
        'a polite answer satisfies the judge': 'passed',
        'judges any text': 'passed',
      });
      expect(output(runs.rereplay)).not.toContain('stale cassette:');
    });

    it('reports a verdict stale when the judge model or the judged text changed', () => {
      expect(statuses(fileOf(runs.otherJudge, RECORDED))).toEqual({
        'a polite answer satisfies the judge': 'passed',
        'judges any text': 'passed',
      });
      const text = output(runs.otherJudge);
      expect(text).toMatch(
        /stale cassette: .* recorded in test "a polite answer satisfies the judge" answered the judge's .*model.*"gpt-4o-mini" → "gpt-4\.1-mini"/s,
      );
      expect(text).toMatch(
        /stale cassette: .* recorded in test "judges any text" answered the judge's .*system prompt.*Your refund was sent\./s,
      );
    });

    it('fails the test when the recorded verdict says the text does not satisfy the rubric', () => {
      const file = fileOf(runs.flipped, RECORDED);
      expect(statuses(file)['judges any text']).toBe('failed');
      const message = plain(file, 'judges any text');
      expect(message).toContain('Received: the judge (openai gpt-4o-mini) answered fail, because:');
      expect(message).toContain('- the text does not mention "invoice"');
      expect(message).toContain('Your refund is on its way.');
      // The trace and timeline hold the judge's call: the rubric, the judged text and the verdict with its reasons.
      expect(flippedTraces).toHaveLength(2);
      for (const trace of flippedTraces) {
        expect(trace).toContain('It must mention');
        expect(trace).toContain('Your refund is on its way.');
        expect(trace).toContain('does not mention');
      }
    });

    it('fails a replay with no recorded verdict, under .not too, naming the command that records it', () => {
      const file = fileOf(offlineRuns.missing, 'judge-missing.case.js');
      expect(statuses(file)).toEqual({
        'a judge fixture written by hand answers the judge': 'passed',
        'has no recorded verdict': 'failed',
        'has no recorded verdict under .not either': 'failed',
      });
      for (const title of ['has no recorded verdict', 'has no recorded verdict under .not either']) {
        const message = plain(file, title);
        expect(message).toContain('no recorded verdict of the judge (openai gpt-4o-mini)');
        expect(message).toContain(
          `npx understudy record -- judge-missing.case.js -t "${title.replace('.not', '\\.not')}"`,
        );
        // The agent's catch-all fixture did not answer it.
        expect(message).not.toContain('Thank you for writing');
      }
    });

    it('passes cost and latency budgets from usage, prices and the replay clock, and fails them over budget', () => {
      const within = fileOf(offlineRuns.budgets, 'judge-budgets.case.js');
      expect(statuses(within)).toEqual({
        'stays within its cost budget': 'passed',
        'stays within its latency budget': 'passed',
        'fails a cost budget on a model with no price, whichever way it is asserted': 'failed',
      });
      const over = fileOf(offlineRuns.overBudget, 'judge-budgets.case.js');
      expect(statuses(over)).toEqual({
        'stays within its cost budget': 'failed',
        'stays within its latency budget': 'failed',
        'fails a cost budget on a model with no price, whichever way it is asserted': 'failed',
      });
      expect(plain(over, 'stays within its cost budget')).toMatch(
        /Expected: a cost below \$0\.0400\nReceived: \$0\.0420 over 2 model calls/,
      );
      expect(plain(over, 'stays within its latency budget')).toContain(
        'Received: 600 ms, replay: the simulated time of its 2 model calls (300 ms + 300 ms)',
      );
      for (const file of [within, over]) {
        const message = plain(
          file,
          'fails a cost budget on a model with no price, whichever way it is asserted',
        );
        expect(message).toContain('openai model "gpt-unpriced", which has no price');
        expect(message).toContain('prices: { openai: { "gpt-unpriced": { input, output } } }');
      }
    });
  },
);

describe('the judge and the budgets, typed', () => {
  it('types the matchers for a TypeScript consumer, and refuses misuse', () => {
    const project = freshFolder('judge-types-');
    writeFileSync(
      join(project, 'typed.test.mts'),
      [
        "import { expect, it } from '@jest/globals';",
        "import { understudy, costOf, type PriceTable } from 'jest-understudy';",
        "import 'jest-understudy/matchers';",
        '',
        "it('typed', async () => {",
        '  const run = await understudy.run(async () => "hi");',
        "  await expect(run).toSatisfyJudge('polite', { provider: 'openai', model: 'gpt-4o-mini' });",
        "  await expect('text').not.toSatisfyJudge('polite');",
        '  expect(run).toHaveCostBelow(0.01);',
        '  expect(run).not.toHaveLatencyBelow(100);',
        "  const prices: PriceTable = { openai: { 'my-model': { input: 1, output: 2 } } };",
        "  const cost: number | undefined = costOf({ inputTokens: 1, outputTokens: 1 }, 'openai', 'my-model', prices);",
        '  void cost;',
        '  // @ts-expect-error a provider the judge does not speak',
        "  await expect(run).toSatisfyJudge('polite', { provider: 'mistral' });",
        '  // @ts-expect-error a budget is a number',
        "  expect(run).toHaveCostBelow('1');",
        '});',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['typed.test.mts'],
      }),
    );
    const tsc = join(installedProject(), 'node_modules', 'typescript', 'bin', 'tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);
});
