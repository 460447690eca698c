/**
 * Bad input from the installed package, as a user meets it under Jest (CommonJS and ESM) and
 * Vitest: a cassette that cannot be loaded
 * fails its test file at start-up (instead of a connection error an agent swallows), fixtures
 * given in memory are checked like files, bad options name their path, and the CLI from the
 * installed bin reports every file and never runs the user's code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  freshFolder,
  type InstalledProjectRun,
  installedProject,
  RUNNERS,
  type Runner,
  runInstalled,
  runInstalledProjects,
} from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'a cassette that cannot be loaded fails the test file at start-up (%s)',
  (_kind, runner) => {
    it('merge-conflict markers, an invalid fixture file, a directory, /etc/passwd', async () => {
      // The exit code belongs to the shared run: that nothing in these files passed is what tells.
      const run = await sharedRun('validation-cassette', runner);
      const byName = (name: string) => {
        const file = run.files.find((f) => f.name.endsWith(`/${name}`));
        if (!file) throw new Error(`no result for ${name}: ${run.process.stderr}`);
        // Nothing ran: no test could pass on a swallowed error.
        expect(file.tests.filter((t) => t.status === 'passed')).toEqual([]);
        return file.message;
      };
      const at = (path: string) => join(run.project, path);
      expect(byName('validation-cassette.case.js')).toContain(
        `${at('__cassettes__/validation-cassette.case.js.cassette.json')}:1:1 at $: invalid JSON`,
      );
      expect(byName('validation-cassette.case.js')).toContain('the file has merge-conflict markers');
      expect(byName('validation-cassette-invalid.case.js')).toContain(
        `${at('recordings/invalid.cassette.json')}:1:45 at $.fixtures[0].response.toolCalls: must be a non-empty list of { name, arguments, id? } (got the string "lookup")`,
      );
      expect(byName('validation-cassette-dir.case.js')).toContain(
        `${at('recordings')} at $: this is a directory, not a file`,
      );
      expect(byName('validation-cassette-passwd.case.js')).toContain(
        '/etc/passwd at $: the file name has no extension, so its format is unknown',
      );
    }, 90_000);
  },
);

const BAD_OPTIONS: Array<[Record<string, unknown>, string[]]> = [
  [
    { providers: 5, world: '', timeScale: Number.NaN },
    [
      'testEnvironmentOptions.understudy.world: must be a non-empty string (got the string "")',
      'testEnvironmentOptions.understudy.providers: must be { openai?, anthropic?, gemini?, bedrock?, azure?, vertex?, openrouter?, ollama?, litellm? } (got 5)',
      // jest.config values reach the environment through JSON: NaN arrives as null.
      "testEnvironmentOptions.understudy.timeScale: must be a number ≥ 0 (got null) — NaN and Infinity turn into null on their way to Jest's workers",
    ],
  ],
  [
    { providers: { openai: 'https://proxy.invalid/v1', anthropic: { baseUrl: 'https://gw.invalid' } } },
    [
      'testEnvironmentOptions.understudy.providers.openai: must be { baseURL } (got the string "https://proxy.invalid/v1") — write { "baseURL": "https://proxy.invalid/v1" }',
      'testEnvironmentOptions.understudy.providers.anthropic.baseUrl: unknown property "baseUrl" — did you mean "baseURL"?',
    ],
  ],
];

// Under Jest, the bad options, each a project of its own (its own folder and options), in one
// child Jest per runner: each fails its file.
const JEST_RUNNERS = rowsOf(
  __filename,
  EACH_RUNNER.filter(([, runner]) => runner !== 'vitest'),
);
const projects: Partial<Record<Runner, Record<string, InstalledProjectRun>>> = {};
beforeAll(async () => {
  await Promise.all(
    JEST_RUNNERS.map(async ([, runner]) => {
      projects[runner] = await runInstalledProjects(
        Object.fromEntries(
          BAD_OPTIONS.map(([understudy], i) => [
            `options-${i}`,
            { cases: ['validation-options.case.js'], understudy },
          ]),
        ),
        RUNNERS[runner],
      );
    }),
  );
}, 120_000);

describe('fixtures given in memory are checked like a fixture file', () => {
  it.each(rowsOf(__filename, EACH_RUNNER))(
    'each bad one fails its test with the path from the argument (%s)',
    async (_, runner) => {
      const run = await sharedRun('validation-use', runner);
      const tests = Object.fromEntries(run.files[0].tests.map((t) => [t.title, t]));
      const failure = (title: string) => {
        expect(tests[title].status).toBe('failed');
        return tests[title].failureMessages.join('\n');
      };
      expect(failure('chunkSize 0')).toContain(
        'understudy.model.use() at use()[0].response.chunkSize: must be an integer ≥ 1 (got 0)',
      );
      expect(failure('a null fixture')).toContain(
        'understudy.model.use() at use().fixtures[0]: must be { match, response } (got null)',
      );
      expect(failure('a null fixture')).not.toContain('TypeError');
      expect(failure('toolCalls as a string')).toContain(
        'use()[0].response.toolCalls: must be a non-empty list of { name, arguments, id? } (got the string "lookup")',
      );
      expect(failure('harness.run with a bad fixture')).toContain(
        'harness.run({ fixtures }) at fixtures[0].response.latency: must be a number ≥ 0 (got -5)',
      );
      expect(failure('createAgentHarness with a bad fixture')).toContain(
        'createAgentHarness({ fixtures }) at fixtures[0].reponse: unknown property "reponse" — did you mean "response"?',
      );
      expect(tests['a failed use() registers nothing'].status).toBe('passed');
    },
    90_000,
  );
});

describe.each(JEST_RUNNERS)('bad options name the option path (%s)', (_kind, runner) => {
  it.each(BAD_OPTIONS.map(([understudy, messages], i) => [understudy, messages, `options-${i}`] as const))(
    '%j',
    (_, messages, name) => {
      const run = projects[runner]?.[name];
      if (!run) throw new Error(`no run of ${name} under ${runner}`);
      expect(run.files).toHaveLength(1);
      expect(run.files[0].tests.filter((t) => t.status === 'passed')).toEqual([]);
      const text = run.files[0].message;
      expect(text).toContain(
        `jest-understudy: invalid testEnvironmentOptions.understudy: ${messages.length} problems`,
      );
      for (const message of messages) expect(text).toContain(message);
    },
  );
});

// Under Vitest the plugin refuses bad options at start-up: Vitest runs no file and exits non-zero,
// with the texts Jest gives. The config is the file a user writes (NaN stays NaN: no JSON on the
// way, so no word of Jest's workers).
describe('bad options name the option path (Vitest with the plugin)', () => {
  const literal = (options: Record<string, unknown>) =>
    JSON.stringify(options, (_, v) => (Number.isNaN(v) ? '<NaN>' : v)).replace('"<NaN>"', 'NaN');
  it.each(BAD_OPTIONS.map(([understudy, messages]) => [understudy, messages] as const))(
    '%j',
    async (understudy, messages) => {
      const config = [
        "import understudy from 'jest-understudy/vitest';",
        `export default { plugins: [understudy(${literal(understudy)})], test: { globals: true, include: ['validation-options.case.js'] } };`,
        '',
      ].join('\n');
      const run = await runInstalled({
        cases: ['validation-options.case.js'],
        files: { 'bad-options.config.mjs': config },
        args: ['--config', 'bad-options.config.mjs'],
        ...RUNNERS.vitest,
      });
      expect(run.code).not.toBe(0);
      expect(run.files).toEqual([]);
      const text = stripVTControlCharacters(run.stdout + run.stderr);
      expect(text).toContain(
        `jest-understudy: invalid testEnvironmentOptions.understudy: ${messages.length} problems`,
      );
      for (const message of messages)
        expect(text).toContain(
          message.replace(/\(got null\) — NaN and Infinity turn into null .*$/, '(got NaN)'),
        );
    },
    60_000,
  );
});

describe('understudy validate from the installed bin', () => {
  const cli = (cwd: string, args: string[]) => {
    const main = join(installedProject(), 'node_modules', 'jest-understudy', 'dist', 'src', 'cli', 'main.js');
    const r = spawnSync(process.execPath, [main, 'validate', ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' },
      timeout: 60_000,
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it('reports every file, hostile ones included, and goes on; never runs a behavior module', () => {
    const dir = freshFolder('cli-');
    const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
    const nested = (depth: number) => '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);
    write(
      'deep.fixture.json',
      `[{"match": {}, "response": {"toolCalls": [{"name": "f", "arguments": ${nested(2000)}}]}}]`,
    );
    write('deep.world.json', `{"packages": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const levels = 'abcdefghi'.split('');
    write(
      'bomb.fixture.yaml',
      `${levels
        .map(
          (k, i) =>
            `x-${k}: &${k} [${
              i === 0
                ? Array(9).fill('lol').join(',')
                : Array(9)
                    .fill(`*${levels[i - 1]}`)
                    .join(',')
            }]`,
        )
        .join(
          '\n',
        )}\nfixtures:\n  - match: {}\n    response: { toolCalls: [{ name: f, arguments: { v: *i } }] }\n`,
    );
    write('twice.fixture.json', '[{"match": {}, "response": {"content": "a", "content": "b"}}]');
    write('bad.fixture.json', '[{"match": {}, "response": {"content": "x", "chunkSize": 0}}]');
    write('tasks.golden.yaml', 'tasks:\n  - id: t\n    input: hi\n    fixtures: bad.fixture.json\n');
    write(
      'side.js',
      "require('fs').writeFileSync(__dirname + '/SIDE-EFFECT', 'ran');\nexports.default = () => 1;\n",
    );
    write(
      'shop.world.yaml',
      `packages:
  - id: shop
    kind: external
    bindings: [direct, http]
    http: { baseURL: https://api.openai.com/v1 }
    state: { orders: {} }
    operations:
      - id: orders.get
        errors: [{ code: NOT_FOUND, status: 404 }]
        http: { method: GET, path: '/records/{id' }
        behavior: { builtin: get, collection: ordres }
      - id: orders.run
        behavior: { module: ./side.js }
actors:
  - id: agent
    allow: ['sohp/*']
`,
    );
    write('good.fixture.json', '[{"match": {}, "response": {"content": "hi"}}]');

    const r = cli(dir, [
      'deep.fixture.json',
      'deep.world.json',
      'bomb.fixture.yaml',
      'twice.fixture.json',
      'tasks.golden.yaml',
      'shop.world.yaml',
      'good.fixture.json',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'deep.fixture.json at $[0].response.toolCalls[0].arguments.a.a.a.a.a: nested more than 100 levels deep',
    );
    expect(r.out).toContain('deep.world.json at $.packages[0][0][0]');
    expect(r.out).toMatch(
      /bomb\.fixture\.yaml:\d+:\d+ at .*: YAML aliases expand the document past 100,000 repeated values/,
    );
    expect(r.out).toContain('twice.fixture.json:1:45 at $[0].response.content: duplicate key "content"');
    expect(r.out).toContain(
      'tasks.golden.yaml:4:5 at $.tasks[0].fixtures: fixture file "bad.fixture.json" is not valid',
    );
    expect(r.out).toContain(
      'bad.fixture.json:1:45 at $[0].response.chunkSize: must be an integer ≥ 1 (got 0)',
    );
    expect(r.out).toContain('at $.packages[0].http.baseURL: api.openai.com is the OpenAI API');
    expect(r.out).toContain(
      'at $.packages[0].operations[0].http.path: malformed path template "/records/{id"',
    );
    expect(r.out).toContain(
      'at $.packages[0].operations[0].behavior.collection: package "shop" has no collection "ordres"',
    );
    expect(r.out).toContain('at $.actors[0].allow[0]: unknown package "sohp" in "sohp/*"');
    expect(r.out).toContain('✓ good.fixture.json (fixtures): 1 fixture');
    expect(r.out).toContain('1 valid, 6 with problems');
    expect(existsSync(join(dir, 'SIDE-EFFECT'))).toBe(false);
  }, 60_000);
});
