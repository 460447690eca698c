/**
 * What the installed package writes and deletes in a consumer project, under Jest (CommonJS and
 * ESM) and Vitest: no file or file name holds a key in use; nothing of the
 * user's is deleted; record mode writes its cassette and replay serves it on CI without a
 * key; a test after thousands of calls keeps its memory and its trace within bounds.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import {
  CASES,
  type InstalledProjectRun,
  type InstalledRun,
  RUNNERS,
  type Runner,
  runInstalled,
  runInstalledProjects,
} from '../support/installed';
import { runnersOf } from '../support/runner-tier';

/** Every file below `dir`, as paths relative to it. */
function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesBelow(path).map((p) => join(name, p)) : [name];
  });
}

/** Where a value shows up below `dir`: in a file's name or in its bytes. */
function hitsBelow(dir: string, values: readonly string[]): string[] {
  return filesBelow(dir).flatMap((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    return values.flatMap((v) => [
      ...(file.includes(v) ? [`${file} (its name)`] : []),
      ...(text.includes(v) ? [file] : []),
    ]);
  });
}

const messagesOf = (run: InstalledRun) =>
  stripVTControlCharacters(
    run.files.flatMap((f) => [f.message, ...f.tests.flatMap((t) => t.failureMessages)]).join('\n'),
  );

// A gateway key in a provider variable, of no shape a pattern knows, and one only a request header carries.
const KEY = 'corp-gateway-secret-XYZ987';
const HEADER_KEY = 'gw-header-only-Q7W8E9R0';

const USER_FILES = {
  'tests/writes-trace.case.js': readFileSync(join(CASES, 'writes-trace.case.js'), 'utf8'),
  'tests/runner-globals.cjs': readFileSync(join(CASES, 'runner-globals.cjs'), 'utf8'),
  'tests/notes.md': '# my notes\n',
  'src/app.js': 'module.exports = 1;\n',
  'README.md': '# app\n',
};
const TRACE_CASES = ['tests/writes-trace.case.js'];
const REFUSED: Array<[string, string]> = [
  ['.', "the project's rootDir"],
  ['', "the project's rootDir"],
  ['..', "a folder above the project's rootDir"],
  ['tests', 'a folder that holds test files (tests/writes-trace.case.js)'],
  ['tests/traces', 'inside tests, a folder that holds test files (tests/writes-trace.case.js)'],
];

/**
 * The secrets case, each refused traceDir, the first run of the clean-up check and the memory case:
 * each a project of its own (its own folder and options) in one child per runner. They share its
 * environment; each case reads only its own variables.
 */
const batches = new Map<Runner, Promise<Record<string, InstalledProjectRun>>>();
function runBatch(runner: Runner) {
  const started =
    batches.get(runner) ??
    runInstalledProjects(
      {
        secrets: { cases: ['writes-secrets.case.js'] },
        ...Object.fromEntries(
          REFUSED.map(([traceDir], i) => [
            `refused-${i}`,
            { cases: TRACE_CASES, understudy: { traceDir }, files: USER_FILES },
          ]),
        ),
        first: { cases: TRACE_CASES, files: USER_FILES },
        memory: { cases: ['writes-memory.case.js'] },
      },
      {
        ...RUNNERS[runner],
        env: { ANTHROPIC_API_KEY: KEY, WRITES_HEADER: HEADER_KEY, WRITES_FAIL: '1', WRITES_CALLS: '1500' },
      },
    );
  batches.set(runner, started);
  return started;
}

describe.each(runnersOf(__filename))(
  'secrets (%s): no file or file name the product writes holds a key in use',
  (runner) => {
    let run: InstalledProjectRun;

    beforeAll(async () => {
      run = (await runBatch(runner)).secrets;
    }, 180_000);

    it('fails the test, and the test saw the keys everywhere it planted them', () => {
      const [test] = run.files[0].tests;
      expect(test.status).toBe('failed');
      // The assertion's own message (Jest's output, not a file of ours) shows the planted key.
      expect(test.failureMessages.join('\n')).toContain(`another ${KEY}`);
    });

    it('writes the trace and the timeline with every key blanked, their names too', () => {
      const traces = join(run.project, '.understudy', 'traces');
      const written = filesBelow(traces);
      expect(written).toEqual(
        expect.arrayContaining([
          join('writes-secrets.case.js', 'fails with the key [REDACTED] in its name.trace.json'),
          join('writes-secrets.case.js', 'fails with the key [REDACTED] in its name.trace.html'),
        ]),
      );
      const trace = readFileSync(
        join(traces, 'writes-secrets.case.js', 'fails with the key [REDACTED] in its name.trace.json'),
        'utf8',
      );
      // What was there is still there, with the keys blanked and the text around them whole.
      for (const kept of [
        'Our gateway key is [REDACTED].',
        'look the order up with [REDACTED]',
        'use [REDACTED] with [REDACTED]',
        'the gateway refused (key: [REDACTED]) then gave up; header [REDACTED].',
        'unmatched [REDACTED] [REDACTED]',
        'another [REDACTED]',
      ])
        expect(trace).toContain(JSON.stringify(kept).slice(1, -1));
      expect(hitsBelow(join(run.project, '.understudy'), [KEY, HEADER_KEY])).toEqual([]);
    });

    it('says where the trace is without the key in its path', () => {
      const message = run.files[0].tests[0].failureMessages.join('\n');
      // The path is relative to where the run started when the trace is below it; the project's folder
      // is beside the folder of this run of several projects, so the path is absolute here.
      const where = message
        .split('\n')
        .map((line) => line.trim())
        .find((line) => line.startsWith('Understudy trace:'));
      expect(where).toBe(
        `Understudy trace:    ${join(run.project, '.understudy/traces/writes-secrets.case.js/fails with the key [REDACTED] in its name.trace.json')}`,
      );
      expect(message).not.toMatch(/No fixture matched[^\n]*corp-gateway/);
    });
  },
);

describe.each(runnersOf(__filename))('record mode (%s)', (runner) => {
  const runnerOptions = RUNNERS[runner];
  const KEYS = { openai: 'sk-test-WRITES0123456789abcdefXYZ', anthropic: 'unused', gemini: 'unused' };
  const out = mkdtempSync(join(tmpdir(), 'understudy-writes-record-'));
  let upstream: FakeUpstream;
  const runs: Record<string, InstalledRun> = {};

  beforeAll(async () => {
    upstream = await startFakeUpstream(KEYS);
    const understudy = {
      providers: { openai: { baseURL: `${upstream.url}/openai/v1` } },
      cassetteDir: 'cassettes',
    };
    const env = (phase: string, extra: Record<string, string | undefined> = {}) => ({
      CI: undefined,
      WRITES_UPSTREAM: upstream.url,
      WRITES_OUT: out,
      WRITES_PHASE: phase,
      ...extra,
    });
    const cases = ['writes-record.case.js'];
    // 1. Replay before anything is recorded: no cassette, so the request fails the test.
    runs.before = await runInstalled({ cases, understudy, ...runnerOptions, env: env('before') });
    const project = runs.before.project;
    // 2. `understudy record`, with the key, against the stand-in provider on loopback.
    runs.record = await runInstalled({
      cases,
      understudy,
      ...runnerOptions,
      project,
      cli: ['record'],
      env: env('record', { OPENAI_API_KEY: KEYS.openai }),
    });
    // 3. A recording that cannot be written (its folder would be inside a file) fails the run.
    const blocked = mkdtempSync(join(tmpdir(), 'understudy-writes-blocked-'));
    writeFileSync(join(blocked, 'cassettes'), 'a file where the cassette folder would go\n');
    runs.blocked = await runInstalled({
      cases,
      ...runnerOptions,
      understudy: { ...understudy, cassetteDir: join(blocked, 'cassettes') },
      cli: ['record'],
      env: env('blocked', { OPENAI_API_KEY: KEYS.openai }),
    });
    await upstream.close();
    // 4. Replay of what was recorded, in the same project: on CI, no key, the provider gone.
    runs.replay = await runInstalled({
      cases,
      understudy,
      ...runnerOptions,
      project,
      env: { ...env('replay'), CI: 'true' },
    });
  }, 150_000);

  afterAll(() => upstream?.close());

  it('replay without a cassette fails the test instead of passing', () => {
    expect(runs.before.files[0].tests.map((t) => t.status)).toEqual(['failed']);
    expect(messagesOf(runs.before)).toContain('No fixture matched');
  });

  it('records: the test passes, the run exits 0 and the cassette is written without the key', () => {
    expect(messagesOf(runs.record)).toBe('');
    expect(runs.record.files[0].tests.map((t) => t.status)).toEqual(['passed']);
    expect(runs.record.code).toBe(0);
    const cassette = join(runs.record.project, 'cassettes', 'writes-record.case.js.cassette.json');
    const fixtures = JSON.parse(readFileSync(cassette, 'utf8')).fixtures;
    expect(fixtures).toHaveLength(2);
    expect(fixtures[0].response.toolCalls).toEqual([
      expect.objectContaining({ name: 'lookup_order', arguments: { orderId: 'A-1001' } }),
    ]);
    // The answer quoted the tool result, key and all: the cassette keeps the answer, not the key.
    expect(fixtures[1].response.content).toContain('debug [REDACTED]');
    expect(fixtures[0].match.userMessage).toBe('where is order A-1001? (debug ');
    expect(hitsBelow(join(runs.record.project, 'cassettes'), [KEYS.openai])).toEqual([]);
    expect(hitsBelow(join(runs.record.project, '.understudy'), [KEYS.openai])).toEqual([]);
  });

  it('replays the recording on CI with no key and the provider gone, as it was recorded', () => {
    expect(messagesOf(runs.replay)).toBe('');
    expect(runs.replay.files[0].tests.map((t) => t.status)).toEqual(['passed']);
    // The same run, but for the key the recorded answer no longer holds.
    const recorded = readFileSync(join(out, 'record.json'), 'utf8').replaceAll(KEYS.openai, '[REDACTED]');
    expect(JSON.parse(readFileSync(join(out, 'replay.json'), 'utf8'))).toEqual(JSON.parse(recorded));
  });

  it('fails the run when the cassette cannot be written, saying so', () => {
    expect(runs.blocked.code).toBe(1);
    const message = stripVTControlCharacters(runs.blocked.files[0].message);
    expect(message).toContain('jest-understudy: record mode did not write');
    expect(message).toContain('nothing was recorded');
  });
});

describe.each(runnersOf(__filename))('traceDir: the product deletes only what it wrote (%s)', (runner) => {
  let runs: Record<string, InstalledProjectRun>;

  beforeAll(async () => {
    runs = await runBatch(runner);
  }, 180_000);

  it.each(REFUSED.map(([traceDir, why], i) => [traceDir, why, `refused-${i}`]))(
    'refuses traceDir %j at start-up, and every file of the project stays',
    (_, why, name) => {
      const run = runs[name];
      expect(run.files).toHaveLength(1);
      expect(run.files[0].tests).toEqual([]);
      const message = stripVTControlCharacters(run.files[0].message);
      expect(message).toContain('jest-understudy: testEnvironmentOptions.understudy.traceDir is');
      expect(message).toContain(why);
      for (const [path, text] of Object.entries(USER_FILES))
        expect(readFileSync(join(run.project, path), 'utf8')).toBe(text);
      expect(existsSync(join(run.project, 'tests', 'writes-trace.case.js.trace.json'))).toBe(false);
    },
  );

  it('clears only the traces an earlier run wrote, never a file it did not', async () => {
    const first = runs.first;
    expect(first.files[0].tests.map((t) => t.status)).toEqual(['failed', 'passed']);
    const traces = join(first.project, '.understudy', 'traces', 'tests');
    const folder = join(traces, 'writes-trace.case.js');
    expect(readdirSync(folder).sort()).toEqual([
      '.understudy-written.json',
      'answers the question.trace.html',
      'answers the question.trace.json',
    ]);
    // Files the product did not write: one of the user's in that folder, and a trace-named
    // file in a folder with no list of the product's.
    writeFileSync(join(folder, 'mine.txt'), 'keep me\n');
    mkdirSync(join(traces, 'other.test.js'), { recursive: true });
    writeFileSync(join(traces, 'other.test.js', 'old.trace.json'), '{}\n');

    // The same project again, now passing: the first run's traces go, the rest stays.
    const again = await runInstalled({
      cases: TRACE_CASES,
      files: USER_FILES,
      project: first.project,
      ...RUNNERS[runner],
    });
    expect(again.files[0].tests.map((t) => t.status)).toEqual(['passed', 'passed']);
    expect(readdirSync(folder)).toEqual(['mine.txt']);
    expect(readFileSync(join(traces, 'other.test.js', 'old.trace.json'), 'utf8')).toBe('{}\n');
    for (const [path, text] of Object.entries(USER_FILES))
      expect(readFileSync(join(first.project, path), 'utf8')).toBe(text);
  }, 90_000);
});

describe.each(runnersOf(__filename))('memory: thousands of calls in one test (%s)', (runner) => {
  let run: InstalledProjectRun;

  beforeAll(async () => {
    run = (await runBatch(runner)).memory;
  }, 180_000);

  it('lets the evidence of earlier calls go on model.reset()', () => {
    const test = run.files[0].tests.find((t) => t.title.startsWith('lets the evidence'));
    expect(test?.failureMessages).toEqual([]);
    expect(test?.status).toBe('passed');
  });

  it('writes a trace and a timeline within the budget, saying what they left out', () => {
    const test = run.files[0].tests.find((t) => t.title.startsWith('writes a bounded trace'));
    expect(test?.status).toBe('failed');
    const folder = join(run.project, '.understudy', 'traces', 'writes-memory.case.js');
    const base = join(folder, 'writes a bounded trace of a failing test after many calls.trace');
    const json = readFileSync(`${base}.json`, 'utf8');
    const html = readFileSync(`${base}.html`, 'utf8');
    // 1,501 calls of some 9 KB each (about 14 MB of spans) in a trace of at most 6 MB, plus its test span.
    expect(json.length).toBeLessThan(6.5 * 1024 * 1024);
    expect(html.length).toBeLessThan(json.length);
    const spans = JSON.parse(json).resourceSpans[0].scopeSpans[0].spans;
    const attr = (
      span: { attributes: Array<{ key: string; value: { stringValue?: string } }> },
      key: string,
    ) => span.attributes.find((a) => a.key === key)?.value.stringValue;
    const omitted = JSON.parse(attr(spans[0], 'understudy.omitted') ?? '{}');
    const runs = spans.filter((s: { name: string }) => s.name.startsWith('invoke_agent')).length;
    expect(omitted.modelCalls).toBeGreaterThan(0);
    expect(omitted.runs + runs).toBe(1501);
    // The first and the last steps stay: how the test started and how it ended.
    expect(json).toContain('question 0: zzz');
    expect(json).toContain('question 1499: zzz');
    expect(json).toMatch(/question 0: w{100,}… \[\d+ more characters left out\]/);
    expect(html).toContain(`This trace leaves out ${omitted.runs.toLocaleString('en-US')} runs and`);
  });
});
