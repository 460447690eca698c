/**
 * Tags and live() from the installed package, under Jest (CommonJS and ESM) and Vitest: `understudy record --tag`
 * re-records only the tagged tests and keeps the others' fixtures, the reporter groups results by
 * tag, and a live() test runs only in live mode with a key, never on CI, and is otherwise
 * reported as skipped with the reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { type InstalledRun, RUNNERS, runInstalled } from '../support/installed';
import { SKIPPED } from '../support/runner-output';
import { runnersOf } from '../support/runner-tier';

const KEYS = { openai: 'sk-test-INSTALLEDTAGS0123456789abcd', anthropic: 'unused', gemini: 'unused' };
const statuses = (run: InstalledRun) =>
  Object.fromEntries(run.files.flatMap((f) => f.tests.map((t) => [t.title, t.status])));
const stderr = (run: InstalledRun) => stripVTControlCharacters(run.stderr);

describe.each(runnersOf(__filename))('tags from the installed package (%s)', (runner) => {
  const runnerOptions = RUNNERS[runner];
  let upstream: FakeUpstream;
  const runs: Record<string, InstalledRun> = {};
  let before: Array<{ match: { userMessage?: string }; metadata: { test: string } }>;
  const cassette = (run: InstalledRun) =>
    JSON.parse(readFileSync(join(run.project, 'cassettes', 'tags-record.case.js.cassette.json'), 'utf8'))
      .fixtures as Array<{ match: { userMessage?: string }; metadata: { test: string } }>;

  beforeAll(async () => {
    upstream = await startFakeUpstream(KEYS);
    const understudy = {
      providers: { openai: { baseURL: `${upstream.url}/openai/v1` } },
      cassetteDir: 'cassettes',
    };
    const env = (extra: Record<string, string | undefined> = {}) => ({
      CI: undefined,
      TAGS_UPSTREAM: upstream.url,
      LIVE_UPSTREAM: upstream.url,
      ...extra,
    });
    const key = { OPENAI_API_KEY: KEYS.openai };
    const cases = ['tags-record.case.js'];
    runs.record = await runInstalled({ cases, understudy, ...runnerOptions, cli: ['record'], env: env(key) });
    before = cassette(runs.record);
    runs.tagged = await runInstalled({
      cases,
      understudy,
      ...runnerOptions,
      project: runs.record.project,
      cli: ['record', '--tag', 'cassette-v3'],
      env: env({ ...key, TAGS_NOTE: 'Thanks a lot!' }),
    });
    runs.replay = await runInstalled({
      cases,
      understudy,
      ...runnerOptions,
      project: runs.record.project,
      env: env({ CI: 'true', TAGS_NOTE: 'Thanks a lot!' }),
    });
    const live = ['tags-live.case.js'];
    runs.liveReplay = await runInstalled({ cases: live, understudy, ...runnerOptions, env: env(key) });
    runs.liveCI = await runInstalled({
      cases: live,
      understudy,
      ...runnerOptions,
      env: env({ ...key, CI: 'true' }),
    });
    runs.live = await runInstalled({
      cases: live,
      understudy,
      ...runnerOptions,
      cli: ['live'],
      env: env(key),
    });
  }, 240_000);

  afterAll(() => upstream?.close());

  it('`understudy record --tag cassette-v3` re-records only the tagged test and keeps the other fixtures', () => {
    expect(statuses(runs.record)).toEqual({
      'answers a note @cassette-v3': 'passed',
      'answers a greeting': 'passed',
    });
    expect(runs.tagged.code).toBe(0);
    expect(statuses(runs.tagged)).toEqual({
      'answers a note @cassette-v3': 'passed',
      'answers a greeting': SKIPPED[runner],
    });
    expect(stderr(runs.tagged)).toContain('only tests tagged @cassette-v3');
    const after = cassette(runs.tagged);
    expect(before.map((f) => f.match.userMessage)).toEqual(['Thanks!', 'Hello there']);
    // The tagged test's fixture is the new recording; the skipped test's is kept as it was.
    expect(after.find((f) => f.metadata.test.includes('greeting'))).toEqual(
      before.find((f) => f.metadata.test.includes('greeting')),
    );
    expect(after.map((f) => f.match.userMessage).sort()).toEqual(['Hello there', 'Thanks a lot!']);
    // And the cassette replays both on CI with no key.
    expect(statuses(runs.replay)).toEqual({
      'answers a note @cassette-v3': 'passed',
      'answers a greeting': 'passed',
    });
    expect(stderr(runs.replay)).toContain(
      'jest-understudy\n  2 agent runs\n  2 model calls replayed (openai 2)',
    );
  });

  it('reports the skipped test with the reason, and groups results by tag', () => {
    const out = stderr(runs.tagged);
    expect(out).toContain('1 test skipped');
    expect(out).toContain(
      'notes › answers a greeting (tags-record.case.js): not tagged @cassette-v3 (UNDERSTUDY_TAGS=cassette-v3)',
    );
    expect(out).toMatch(/by tag\n\s+@agent\s+1 passed, 1 skipped\n\s+@cassette-v3\s+1 passed\n/);
  });

  it('refuses a --tag that is not a tag, before the runner starts', async () => {
    const refused = runInstalled({
      cases: ['tags-record.case.js'],
      ...runnerOptions,
      cli: ['record', '--tag', 'a b'],
      env: { CI: undefined, OPENAI_API_KEY: KEYS.openai },
    });
    // The child writes no results: the runner never started. The Jest driver throws on a run
    // without results; the Vitest driver gives the run back, its exit code and output.
    const outcome = await refused.then(
      (run) => `(exit ${run.code}):\n${run.stderr}|${run.files.length} files`,
      (error: Error) => error.message,
    );
    expect(outcome).toContain('(exit 2):\nunderstudy record: --tag "a b" is not a tag');
    if (runner === 'vitest') expect(outcome).toMatch(/\|0 files$/);
  }, 60_000);

  it('live() is skipped in replay mode, with a key, and says why', () => {
    expect(statuses(runs.liveReplay)).toEqual({
      'asks the real model @provider': SKIPPED[runner],
      'a plain test still runs': 'passed',
    });
    expect(stderr(runs.liveReplay)).toContain(
      'asks the real model @provider (tags-live.case.js): live() runs only in live mode (understudy live, UNDERSTUDY_MODE=live); this run is in replay mode',
    );
    expect(
      upstream.requests.filter((r) => r.key === KEYS.openai && r.path.includes('chat')).length,
    ).toBeGreaterThan(0);
  });

  it('live() never runs on CI, even with a key', () => {
    expect(statuses(runs.liveCI)).toEqual({
      'asks the real model @provider': SKIPPED[runner],
      'a plain test still runs': 'passed',
    });
    expect(stderr(runs.liveCI)).toContain('live() never runs on CI (CI="true")');
    expect(stderr(runs.liveCI)).toMatch(/@smoke\s+1 passed, 1 skipped/);
  });

  it('live() runs in live mode with a key, off CI, against the provider', () => {
    expect(runs.live.code).toBe(0);
    expect(stderr(runs.live)).toContain(
      `understudy live: running ${runner === 'vitest' ? 'vitest' : 'jest'} (a`,
    );
    expect(statuses(runs.live)).toEqual({
      'asks the real model @provider': 'passed',
      'a plain test still runs': 'passed',
    });
    expect(stderr(runs.live)).toMatch(/@provider\s+1 passed\n/);
    expect(stderr(runs.live)).not.toContain('skipped');
  });
});
