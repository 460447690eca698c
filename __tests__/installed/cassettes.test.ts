/**
 * Cassettes from the installed package, under Jest (CommonJS and ESM) and Vitest: `understudy
 * record -- -t <one test>` re-records that test and keeps the other's fixtures; a replay
 * on CI, with no key, reports a tool result that changed since the recording, in words,
 * and fails it with strictCassettes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { type InstalledRun, RUNNERS, runInstalled } from '../support/installed';
import { SKIPPED } from '../support/runner-output';
import { runnersOf } from '../support/runner-tier';

const KEYS = { openai: 'sk-test-INSTALLEDCASSETTES0123456789', anthropic: 'unused', gemini: 'unused' };
const cassetteOf = (run: InstalledRun) => join(run.project, 'cassettes', 'cassettes.case.js.cassette.json');
const fixturesOf = (run: InstalledRun) => JSON.parse(readFileSync(cassetteOf(run), 'utf8')).fixtures;
const statuses = (run: InstalledRun) => run.files.flatMap((f) => f.tests.map((t) => [t.title, t.status]));
const output = (run: InstalledRun) =>
  stripVTControlCharacters(
    [run.stderr, ...run.files.flatMap((f) => [f.message, ...f.tests.flatMap((t) => t.failureMessages)])].join(
      '\n',
    ),
  );

describe.each(runnersOf(__filename))('cassettes from the installed package (%s)', (runner) => {
  let upstream: FakeUpstream;
  const runs: Record<string, InstalledRun> = {};
  let first: any[];

  beforeAll(async () => {
    upstream = await startFakeUpstream(KEYS);
    const understudy = {
      providers: { openai: { baseURL: `${upstream.url}/openai/v1` } },
      cassetteDir: 'cassettes',
    };
    const cases = ['cassettes.case.js'];
    const runnerOptions = RUNNERS[runner];
    const env = (extra: Record<string, string | undefined> = {}) => ({
      CI: undefined,
      CASSETTES_UPSTREAM: upstream.url,
      ...extra,
    });
    const key = { OPENAI_API_KEY: KEYS.openai };
    runs.record = await runInstalled({ cases, understudy, ...runnerOptions, cli: ['record'], env: env(key) });
    const project = runs.record.project;
    first = fixturesOf(runs.record);
    runs.partial = await runInstalled({
      cases,
      understudy,
      ...runnerOptions,
      project,
      cli: ['record'],
      args: ['-t', 'answers a note'],
      env: env({ ...key, CASSETTES_NOTE: 'Thanks a lot!' }),
    });
    await upstream.close();
    const replay = env({ CI: 'true', CASSETTES_NOTE: 'Thanks a lot!', CASSETTES_STATUS: 'already_refunded' });
    runs.replay = await runInstalled({ cases, understudy, ...runnerOptions, project, env: replay });
    runs.strict = await runInstalled({
      cases,
      understudy,
      ...runnerOptions,
      project,
      env: { ...replay, UNDERSTUDY_STRICT_CASSETTES: '1' },
    });
  }, 180_000);

  afterAll(() => upstream?.close());

  it('records both tests, grouped by test', () => {
    // The CLI found the project's runner from its config file.
    const found = runner === 'vitest' ? 'vitest (a vitest.config file)' : 'jest (a jest.config file)';
    expect(output(runs.record)).toContain(`understudy record: running ${found} in record mode`);
    expect(statuses(runs.record)).toEqual([
      ['checks a refund', 'passed'],
      ['answers a note', 'passed'],
    ]);
    expect(first.map((f: any) => f.metadata.test)).toEqual([
      'checks a refund',
      'checks a refund',
      'answers a note',
    ]);
  });

  it("`understudy record -- -t <test>` re-records that test and keeps the other test's fixtures", () => {
    expect(runs.partial.code).toBe(0);
    expect(statuses(runs.partial)).toEqual([
      ['checks a refund', SKIPPED[runner]],
      ['answers a note', 'passed'],
    ]);
    const after = fixturesOf(runs.partial);
    expect(after.slice(0, 2)).toEqual(first.slice(0, 2));
    expect(after.map((f: any) => f.match.userMessage)).toEqual([
      'Was order A-1001 refunded?',
      'Was order A-1001 refunded?',
      'Thanks a lot!',
    ]);
  });

  it('replays on CI with no key, and says the tool result changed since the recording', () => {
    expect(statuses(runs.replay)).toEqual([
      ['checks a refund', 'passed'],
      ['answers a note', 'passed'],
    ]);
    expect(output(runs.replay)).toMatch(
      /stale cassette: .* answered this openai\.chat request .* but the tool result of lookup_order \(call_up\d+x0\) changed: status "refunded" → "already_refunded" since it was recorded/,
    );
  });

  it('fails that test with strictCassettes', () => {
    expect(statuses(runs.strict)).toEqual([
      ['checks a refund', 'failed'],
      ['answers a note', 'passed'],
    ]);
    expect(output(runs.strict)).toContain('[CASSETTE_STALE]');
  });
});
