/**
 * The Vitest plugin from the packed tarball (`jest-understudy/vitest`), in a Vitest consumer
 * project: whole tool loops on real SDKs, the matchers, and the failures an agent may swallow,
 * each written once (cases/vitest/parity-scenarios.cjs, run by one case file) and run under Jest
 * CommonJS, Jest ESM and Vitest with the same results and the same messages; the settings the
 * plugin refuses, refused at start-up.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { root } from '../support/child-jest';
import { fileOf, RUNNERS, type Runner, runInstalled } from '../support/installed';
import { runInstalledVitest, type VitestRun } from '../support/installed-vitest';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

/** The parity scenarios' one case file, under every runner. */
const PARITY = ['vitest/parity.case.js'];

const scenarios: Record<string, [unknown, boolean]> = require('./cases/vitest/parity-scenarios.cjs');

/** What every failing scenario's message must say, whichever runner ran it. */
const SAYS: Record<string, string> = {
  'an agent that drops the tool calls fails toHaveCalledToolSequence': '0 calls received',
  'wrong arguments fail toHaveCalledTool': 'with arguments matching {"city": "Bergen"}',
  'a wrong final message fails toHaveFinalMessage': 'Expected final message: containing "sunny"',
  'an unmatched request the agent swallowed fails the test': 'UnderstudyError [MODEL_UNMATCHED]',
  'a blocked connection the agent swallowed fails the test':
    'UnderstudyError [UNHANDLED_REQUEST]: GET https://tools.example.com/v1/weather',
  'a contract breach the agent swallowed fails the test': 'UnderstudyError [CONTRACT_BREACH]',
  'a run that threw and was never looked at fails the test': 'UnderstudyError [RUN_UNOBSERVED]',
};

/** A failure's message as a person reads it: no colours, no stack, no trace paths (each runner's own). */
function message(file: ChildFile, title: string): string {
  const test = file.tests.find((t) => t.title === title);
  if (!test) throw new Error(`no test "${title}" in ${file.name}`);
  const text = stripVTControlCharacters(test.failureMessages[0] ?? '');
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s+at /.test(line) || line.startsWith('Understudy trace:')) break;
    lines.push(line);
  }
  return lines.join('\n').trim();
}

const statusOf = (file: ChildFile) => Object.fromEntries(file.tests.map((t) => [t.title, t.status]));
const expected = Object.fromEntries(
  Object.entries(scenarios).map(([title, [, passes]]) => [title, passes ? 'passed' : 'failed']),
);

/** The records example's agent, client module, world and behavior, as the seed's case imports them. */
function recordsExample(): Record<string, string> {
  const dir = join(root, 'examples', 'records-agent');
  const files = Object.fromEntries(
    readdirSync(dir)
      .filter((name) => !name.endsWith('.test.ts') && name !== 'records.behavior.ts')
      .map((name) => [`records/${name}`, readFileSync(join(dir, name), 'utf8')]),
  );
  // Its behavior module in JavaScript (Node 20 cannot require TypeScript; see records-behavior.cjs).
  files['records/records.world.yaml'] = files['records/records.world.yaml'].replace(
    './records.behavior.ts',
    './records.behavior.cjs',
  );
  files['records/records.behavior.cjs'] = readFileSync(
    join(__dirname, 'cases', 'vitest', 'records-behavior.cjs'),
    'utf8',
  );
  return files;
}

describe('the parity scenarios, one case file under each runner', () => {
  const runs: Partial<Record<Runner, ChildFile>> = {};
  beforeAll(async () => {
    for (const [, runner] of EACH_RUNNER)
      runs[runner] = fileOf(await sharedRun('parity', runner), 'parity.case.js');
  }, 180_000);

  it.each(EACH_RUNNER)(
    'run whole tool loops and fail wrong agents, with the same messages as Jest CommonJS (%s)',
    (_kind, runner) => {
      const file = runs[runner] as ChildFile;
      const reference = runs['jest-cjs'] as ChildFile;
      expect(statusOf(file)).toEqual(expected);
      for (const [title, says] of Object.entries(SAYS)) {
        expect(message(file, title)).toContain(says);
        expect(message(file, title)).toBe(message(reference, title));
      }
    },
  );

  it('under Vitest, nothing fails the file itself, and a failure names its trace', () => {
    const file = runs.vitest as ChildFile;
    // The session's own hooks and its teardown. (Jest's file message repeats its tests' failures.)
    expect(file.message).toBe('');
    // Vitest prints the trace of a failed test where it prints the failure.
    expect(file.tests.find((t) => t.status === 'failed')?.failureMessages[0]).toContain('Understudy trace:');
  });
});

describe('the Vitest plugin', () => {
  it("runs on Vitest's threads pool as on its forks pool", async () => {
    const run = await runInstalled({ cases: PARITY, args: ['--pool=threads'], ...RUNNERS.vitest });
    const file = fileOf(run, 'parity.case.js');
    expect(statusOf(file)).toEqual(expected);
    expect(message(file, 'a blocked connection the agent swallowed fails the test')).toContain(
      SAYS['a blocked connection the agent swallowed fails the test'],
    );
  }, 120_000);

  describe('refuses at start-up what it cannot honour, with the reason', () => {
    it.each([
      ['the vmThreads pool', { args: ['--pool=vmThreads'] }, 'with the `vmThreads` pool'],
      ['the vmForks pool', { vitestConfig: { pool: 'vmForks' } }, 'with the `vmForks` pool'],
      [
        'browser mode',
        { vitestConfig: { browser: { enabled: true, instances: [{ browser: 'chromium' }] } } },
        'with browser mode (`browser.enabled`)',
      ],
    ])(
      '%s',
      async (_, options, reason) => {
        const run = await runInstalled({ cases: PARITY, ...options, ...RUNNERS.vitest });
        expect(run.code).not.toBe(0);
        expect(run.files).toEqual([]);
        const output = stripVTControlCharacters(run.stdout + run.stderr);
        expect(output).toContain(
          `[RUNNER_SETTING_REFUSED]: jest-understudy cannot run this Vitest project ${reason}`,
        );
      },
      60_000,
    );
  });

  describe('under isolate: false, the test files of a worker share its module graph and nothing else', () => {
    const CASES = ['shared-worker/a.test.mjs', 'shared-worker/b.test.mjs'];
    /** Each file's results, expected of either file whichever the worker ran first. */
    const EXPECTED = {
      "a voice agent whose module kept the WebSocket class of the worker's first file is answered by this file's model":
        'passed',
      "a voice turn only the other file's fixtures answer, swallowed by the agent, fails here": 'failed',
      "the module's client is answered by this file's model, and this file's world starts empty": 'passed',
      "a note only the other file's fixtures answer, swallowed by the agent, fails here": 'failed',
      'a blocked request the agent swallowed fails this test': 'failed',
      'a blocked node:https request the agent swallowed fails this test': 'failed',
      "the suite's msw server answers in this file": 'passed',
      'the next test is charged with nothing': 'passed',
      'a call a test of the earlier file left running is refused, not answered here': 'passed',
    };
    /** A JSON file the shared-worker cases wrote beside themselves. */
    const written = <T>(run: VitestRun, file: string) =>
      JSON.parse(readFileSync(join(run.project, 'shared-worker', file), 'utf8')) as T;
    const seen = (run: VitestRun, name: string) =>
      written<{ pid: number; before: string[] }>(run, `seen-${name}.json`);

    /** A config that runs these files in one shared worker, the file whose import fails first. */
    const brokenFirst = (include: string[]) =>
      [
        "import { defineConfig } from 'vitest/config';",
        "import understudy from 'jest-understudy/vitest';",
        "import BrokenFirst from './shared-worker/broken-first.mjs';",
        `export default defineConfig({ plugins: [understudy()], test: { include: ${JSON.stringify(include)}, isolate: false, fileParallelism: false, sequence: { sequencer: BrokenFirst } } });`,
        '',
      ].join('\n');

    it('gives the other Vitest case files the results they have isolated, their worker shared', async () => {
      const cases = [
        'native-fixtures.test.mjs',
        'native-wrong.test.mjs',
        'native-teardown.test.mjs',
        'pragmas.test.mjs',
        'bad-pragma.test.mjs',
        'snapshot.test.mjs',
        'harness.test.mjs',
        // Its import fails; the shared worker runs it first, and the files after it must not notice.
        'shared-worker/broken.test.mjs',
      ];
      const [isolated, shared] = await Promise.all([
        runInstalledVitest({ cases }),
        runInstalledVitest({ cases, configText: brokenFirst(cases) }),
      ]);
      const results = (run: VitestRun) =>
        Object.fromEntries(
          run.files.map((f) => [
            f.name.slice(run.project.length),
            { failed: f.message !== '', tests: statusOf(f) },
          ]),
        );
      const expected = results(isolated);
      expect(Object.keys(expected)).toHaveLength(cases.length);
      expect(results(shared)).toEqual(expected);
      // The isolated run passes some and fails others (wrong agents, a bad pragma, the broken import).
      const statuses = Object.values(expected).flatMap((r) => Object.values(r.tests));
      expect(new Set(statuses)).toEqual(new Set(['passed', 'failed']));
    }, 180_000);

    it.each([
      ['--no-isolate, one worker (forks)', { args: ['--no-isolate', '--no-file-parallelism'] }],
      [
        'isolate: false in the config, threads',
        { test: { isolate: false, fileParallelism: false, pool: 'threads' } },
      ],
      [
        'after a file whose import failed (no hook of it ran)',
        { configText: brokenFirst(['shared-worker/broken.test.mjs', ...CASES]) },
      ],
    ])(
      '%s: each file has its own model, world, failures and fetch',
      async (_, options) => {
        const run = await runInstalledVitest({ cases: CASES, ...options });
        // The file whose import failed was reported so, and the files after it ran as ever.
        const broken = run.files.find((f) => f.name.endsWith('/broken.test.mjs'));
        if ('configText' in options)
          expect(stripVTControlCharacters(broken?.message ?? '')).toContain('no-such-module.mjs');
        const [a, b] = ['A', 'B'].map((name) => {
          const file = run.files.find((f) => f.name.endsWith(`/${name.toLowerCase()}.test.mjs`));
          if (!file) throw new Error(`no results for ${name}:\n${run.stdout}\n${run.stderr}`);
          return file;
        });
        for (const [file, own, other] of [
          [a, 'A', 'B'],
          [b, 'B', 'A'],
        ] as const) {
          expect(statusOf(file)).toEqual(EXPECTED);
          for (const title of [
            "a note only the other file's fixtures answer, swallowed by the agent, fails here",
            "a voice turn only the other file's fixtures answer, swallowed by the agent, fails here",
          ])
            expect(message(file, title)).toContain('UnderstudyError [MODEL_UNMATCHED]');
          const blocked = message(file, `a blocked request the agent swallowed fails this test`);
          expect(blocked).toContain(
            `UnderstudyError [UNHANDLED_REQUEST]: GET https://tools.example.com/v1/${own}`,
          );
          expect(blocked).not.toContain(`/v1/${other}`);
          expect(message(file, 'a blocked node:https request the agent swallowed fails this test')).toContain(
            `UnderstudyError [UNHANDLED_REQUEST]: GET https://tools.example.com/v2/${own}`,
          );
          expect(file.message).toBe('');
        }
        // One worker ran both files, and the second imported the agent module the first had loaded.
        const [seenA, seenB] = [seen(run, 'A'), seen(run, 'B')];
        expect(seenA.pid).toBe(seenB.pid);
        expect([seenA.before, seenB.before].sort()).toEqual([[], [seenA.before.length ? 'B' : 'A']].sort());
        // The second file let go the call the first had left, which was refused naming the first.
        const [first, second] = seenA.before.length ? ['B', 'A'] : ['A', 'B'];
        expect(existsSync(join(run.project, 'shared-worker', `leftover-${first}.json`))).toBe(false);
        const left = written<{ from: string; outcome: { refused?: string } }>(run, `leftover-${second}.json`);
        expect(left.from).toBe(first);
        expect(left.outcome.refused).toContain(
          `was called after the test file shared-worker/${first.toLowerCase()}.test.mjs finished`,
        );
        expect(run.code).toBe(1);
      },
      120_000,
    );
  });

  it('refuses bad options at start-up with the texts Jest gives', async () => {
    const understudy = { traces: 'sometimes', timeScale: -1 };
    const [vitest, jest] = await Promise.all([
      runInstalled({ cases: PARITY, understudy, ...RUNNERS.vitest }),
      runInstalled({ cases: PARITY, understudy }),
    ]);
    expect(vitest.code).not.toBe(0);
    expect(vitest.files).toEqual([]);
    const said = stripVTControlCharacters(vitest.stdout + vitest.stderr);
    const problems = stripVTControlCharacters(jest.files[0].message)
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('testEnvironmentOptions.understudy.'));
    expect(problems.length).toBe(2);
    for (const problem of problems) expect(said).toContain(problem);
  }, 120_000);

  it("runs seed 000's vi.mock + mockTool drill and seed 001's harness on an AI SDK 7 agent", async () => {
    const run = await runInstalledVitest({
      cases: ['records.test.mts', 'harness.test.mjs'],
      files: recordsExample(),
    });
    const records = run.files.find((f) => f.name.endsWith('/records.test.mts'));
    const harness = run.files.find((f) => f.name.endsWith('/harness.test.mjs'));
    if (!records || !harness) throw new Error(`missing results:\n${run.stdout}\n${run.stderr}`);
    expect(statusOf(records)).toEqual({
      'the agent saves the intended record (it retries the busy store)': 'passed',
      'an agent that does not retry fails the drill': 'failed',
    });
    expect(message(records, 'an agent that does not retry fails the drill')).toContain(
      'record-1 was saved exactly once',
    );
    expect(statusOf(harness)).toEqual({
      'replays a committed exchange': 'passed',
      'fails an agent that never runs the tool it was asked for': 'failed',
    });
    expect(message(harness, 'fails an agent that never runs the tool it was asked for')).toContain(
      'a call to "applyFilter"',
    );
    expect(records.message + harness.message).toBe('');
  }, 120_000);

  describe('pragmas and traces', () => {
    let run: VitestRun;
    const file = (name: string) => {
      const found = run.files.find((f) => f.name.endsWith(`/${name}`));
      if (!found) throw new Error(`no results for ${name}:\n${run.stdout}\n${run.stderr}`);
      return found;
    };
    beforeAll(async () => {
      run = await runInstalledVitest({
        cases: ['pragmas.test.mjs', 'bad-pragma.test.mjs'],
      });
    }, 120_000);

    it('takes the world and fixtures of the docblock pragmas, and sets placeholder keys', () => {
      expect(statusOf(file('pragmas.test.mjs'))).toEqual({
        'serves the pragma world': 'passed',
        'replays the pragma fixtures': 'passed',
        'a note the world does not hold fails as the world says': 'failed',
        'sets a placeholder provider key': 'passed',
      });
      expect(
        message(file('pragmas.test.mjs'), 'a note the world does not hold fails as the world says'),
      ).toContain('notes "n-2" does not exist');
      expect(file('bad-pragma.test.mjs').message).toContain(
        'no-such.world.yaml at $: the file does not exist',
      );
    });

    it('writes the trace and timeline of a failed test, and names them in its failure', () => {
      const title = 'a note the world does not hold fails as the world says';
      const failure = stripVTControlCharacters(
        file('pragmas.test.mjs').tests.find((t) => t.title === title)?.failureMessages[0] ?? '',
      );
      const trace = /Understudy trace: +(\S.*\.trace\.json)/.exec(failure)?.[1];
      const html = /Understudy timeline: +(\S.*\.trace\.html)/.exec(failure)?.[1];
      if (!trace || !html) throw new Error(`no trace named in:\n${failure}`);
      const json = JSON.parse(readFileSync(join(run.project, trace), 'utf8'));
      expect(JSON.stringify(json)).toContain('notes.get');
      expect(existsSync(join(run.project, html))).toBe(true);
      // A passing test writes none (traces: on-failure).
      const folder = join(run.project, '.understudy', 'traces', 'pragmas.test.mjs');
      expect(readdirSync(folder).filter((f) => f.startsWith('serves the pragma world'))).toEqual([]);
    });
  });

  it('a test file run without the plugin fails saying to add the plugin', async () => {
    // The test globals on (the case takes its runner's API from them), and no plugin.
    const run = await runInstalled({
      cases: PARITY,
      files: {
        'no-plugin.config.mjs': `export default { test: { globals: true, include: ${JSON.stringify(PARITY)} } };\n`,
      },
      args: ['--config', 'no-plugin.config.mjs'],
      ...RUNNERS.vitest,
    });
    const file = fileOf(run, 'parity.case.js');
    expect(file.tests.find((t) => t.title === 'openai tool loop meets the trajectory matchers')?.status).toBe(
      'failed',
    );
    expect(message(file, 'openai tool loop meets the trajectory matchers')).toContain(
      "UnderstudyError [ENVIRONMENT_MISSING]: jest-understudy's Vitest plugin is not running this test file. Add it to the Vitest config",
    );
  }, 120_000);
});
