/**
 * Record, replay and live modes under Vitest from the packed tarball: `understudy record` finds
 * Vitest from the project's config and runs it in record mode against a stand-in provider; the
 * cassette it wrote answers the replay; live() is skipped with the reason outside live mode and
 * runs in it. (describeGoldenTasks on Vitest's describe and it: runs-golden.case.js, under every
 * runner in ./runs.test.ts.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { runInstalledVitest, type VitestRun } from '../support/installed-vitest';

const KEYS = { openai: 'sk-test-VITESTMODES0123456789abcdef', anthropic: 'unused', gemini: 'unused' };

const statusOf = (run: VitestRun, name: string) =>
  Object.fromEntries(
    (run.files.find((f) => f.name.endsWith(`/${name}`))?.tests ?? []).map((t) => [t.title, t.status]),
  );

describe('modes under Vitest', () => {
  let upstream: FakeUpstream;
  const runs: Record<string, VitestRun> = {};

  beforeAll(async () => {
    upstream = await startFakeUpstream(KEYS);
    const understudy = {
      providers: { openai: { baseURL: `${upstream.url}/openai/v1` } },
      cassetteDir: 'cassettes',
    };
    const env = (extra: Record<string, string | undefined> = {}) => ({
      CI: undefined,
      RECORD_UPSTREAM: upstream.url,
      LIVE_UPSTREAM: upstream.url,
      ...extra,
    });
    const key = { OPENAI_API_KEY: KEYS.openai };
    runs.record = await runInstalledVitest({
      cases: ['record.test.mjs'],
      understudy,
      cli: ['record'],
      env: env(key),
    });
    runs.replay = await runInstalledVitest({
      cases: ['record.test.mjs'],
      understudy,
      project: runs.record.project,
      env: env({ CI: 'true' }),
    });
    runs.liveReplay = await runInstalledVitest({
      cases: ['live.test.mjs'],
      understudy,
      env: env(key),
    });
    runs.live = await runInstalledVitest({
      cases: ['live.test.mjs'],
      understudy,
      cli: ['live'],
      env: env(key),
    });
  }, 240_000);

  afterAll(() => upstream?.close());

  it('`understudy record` runs Vitest in record mode, and the replay answers from the cassette', () => {
    expect(stripVTControlCharacters(runs.record.stderr)).toContain(
      'understudy record: running vitest (a vitest.config file) in record mode',
    );
    expect(statusOf(runs.record, 'record.test.mjs')).toEqual({ 'answers a greeting': 'passed' });
    expect(runs.record.code).toBe(0);
    const cassette = join(runs.record.project, 'cassettes', 'record.test.mjs.cassette.json');
    expect(existsSync(cassette)).toBe(true);
    const text = readFileSync(cassette, 'utf8');
    expect(
      JSON.parse(text).fixtures.map((f: { match: { userMessage?: string } }) => f.match.userMessage),
    ).toEqual(['Hello there']);
    expect(text).not.toContain(KEYS.openai);
    // The replay (CI, no key) is answered from the cassette: the upstream saw the recording only.
    expect(statusOf(runs.replay, 'record.test.mjs')).toEqual({ 'answers a greeting': 'passed' });
    expect(upstream.requests.filter((r) => r.path.includes('/chat/completions'))).toHaveLength(2); // record + live
  });

  it('skips live() outside live mode with the reason, and runs it in live mode', () => {
    expect(statusOf(runs.liveReplay, 'live.test.mjs')).toEqual({
      'asks the real model': 'skipped',
      'a plain test still runs': 'passed',
    });
    expect(stripVTControlCharacters(runs.liveReplay.stderr)).toContain(
      'asks the real model (live.test.mjs): live() runs only in live mode (understudy live, UNDERSTUDY_MODE=live); this run is in replay mode',
    );
    expect(statusOf(runs.live, 'live.test.mjs')).toEqual({
      'asks the real model': 'passed',
      'a plain test still runs': 'passed',
    });
    expect(stripVTControlCharacters(runs.live.stderr)).toContain('understudy live: running vitest');
  });

  it("keeps prompt snapshots in Vitest's snapshot files: a changed prompt fails on CI", async () => {
    const first = await runInstalledVitest({
      cases: ['snapshot.test.mjs'],
      env: { CI: undefined, SNAP_PROMPT: 'be nice' },
    });
    expect(statusOf(first, 'snapshot.test.mjs')).toEqual({ 'snapshots the prompt': 'passed' });
    const same = await runInstalledVitest({
      cases: ['snapshot.test.mjs'],
      project: first.project,
      env: { CI: 'true', SNAP_PROMPT: 'be nice' },
    });
    expect(statusOf(same, 'snapshot.test.mjs')).toEqual({ 'snapshots the prompt': 'passed' });
    const changed = await runInstalledVitest({
      cases: ['snapshot.test.mjs'],
      project: first.project,
      env: { CI: 'true', SNAP_PROMPT: 'be rude' },
    });
    expect(statusOf(changed, 'snapshot.test.mjs')).toEqual({ 'snapshots the prompt': 'failed' });
    const failure = stripVTControlCharacters(changed.files[0]?.tests[0]?.failureMessages[0] ?? '');
    expect(failure).toContain('-   be nice\n+   be rude');
  }, 120_000);
});
