import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { SOURCE_CLI } from '../../support/source';

/** The CLI as a user runs it: a separate process in the project's folder. */
function cli(cwd: string, args: string[], env: Record<string, string | undefined> = {}) {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, NODE_OPTIONS: '', ...env }))
    if (v !== undefined) merged[k] = v;
  const r = spawnSync(process.execPath, [...SOURCE_CLI, ...args], {
    cwd,
    env: merged,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function git(cwd: string, ...args: string[]) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

const fixture = (user: string) => ({ match: { userMessage: user }, response: { content: `re: ${user}` } });
const write = (file: string, data: unknown) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
};

describe('understudy fixtures check (in a git repository)', () => {
  let repo: string;
  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'understudy-drift-'));
    git(repo, 'init', '-q');
    git(repo, 'config', 'user.email', 'test@example.com');
    git(repo, 'config', 'user.name', 'test');
    write(join(repo, 'test', 'fixtures', 'a.fixture.json'), { fixtures: [fixture('one'), fixture('two')] });
    write(join(repo, 'test', '__cassettes__', 'agent.test.ts.cassette.json'), {
      fixtures: [fixture('three')],
    });
    writeFileSync(join(repo, 'test', 'agent.test.ts'), '// a test\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'fixtures');
  });

  it('passes when every fixture file is committed as it is', () => {
    expect(cli(repo, ['fixtures', 'check'])).toEqual({ code: 0, out: '✓ no fixture drift\n', err: '' });
    expect(cli(repo, ['fixtures', 'check', 'test/fixtures']).out).toBe(
      '✓ no fixture drift in test/fixtures\n',
    );
  });

  it('fails on a modified file and on an untracked one (which git diff would miss)', () => {
    write(join(repo, 'test', 'fixtures', 'a.fixture.json'), { fixtures: [fixture('one, re-recorded')] });
    write(join(repo, 'test', '__cassettes__', 'new.test.ts.cassette.json'), { fixtures: [fixture('four')] });
    writeFileSync(join(repo, 'notes.txt'), 'not a fixture\n');
    const all = cli(repo, ['fixtures', 'check']);
    expect(all.code).toBe(1);
    expect(all.out).toBe(
      'modified   test/fixtures/a.fixture.json\n' +
        'untracked  test/__cassettes__/new.test.ts.cassette.json\n' +
        '\n2 fixture files changed since the last commit. Review the recording (no secrets, the calls you expect), commit it, and run again.\n',
    );
    // Named folders: everything in them counts; nothing outside them does.
    const named = cli(repo, ['fixtures', 'check', 'test/fixtures']);
    expect(named.code).toBe(1);
    expect(named.out).toContain('modified   test/fixtures/a.fixture.json\n');
    expect(named.out).not.toContain('new.test.ts');
    git(repo, 'checkout', '--', 'test/fixtures/a.fixture.json');
    rmSync(join(repo, 'test', '__cassettes__', 'new.test.ts.cassette.json'));
  });

  it('--unused lists fixtures no test used in the last run of each test file', () => {
    const usage = join(repo, '.understudy', 'usage');
    expect(cli(repo, ['fixtures', 'check', '--unused'])).toMatchObject({
      code: 2,
      err: expect.stringContaining(
        'no usage records in .understudy/usage: run the tests (in replay mode) first',
      ),
    });
    write(join(usage, 'test__agent.test.ts.1234abcd.json'), {
      testPath: 'test/agent.test.ts',
      finishedAt: '2026-01-01T00:00:00.000Z',
      fixtures: {
        'test/fixtures/a.fixture.json': ['$.fixtures[0]'],
        'test/__cassettes__/agent.test.ts.cassette.json': ['$.fixtures[0]'],
      },
    });
    // A record of a test file that no longer exists counts for nothing.
    write(join(usage, 'gone.test.ts.99999999.json'), {
      testPath: 'test/gone.test.ts',
      finishedAt: '2026-01-01T00:00:00.000Z',
      fixtures: { 'test/fixtures/a.fixture.json': ['$.fixtures[1]'] },
    });
    const result = cli(repo, ['fixtures', 'check', '--unused']);
    expect(result.code).toBe(1);
    expect(result.out).toBe(
      'unused     test/fixtures/a.fixture.json $.fixtures[1] (userMessage "two")\n' +
        '\n1 fixture answered no request in the last run. Delete them, or add the test that needs them.\n',
    );
  });

  it('lists the cassette fixtures the last run found stale, and fails', () => {
    const usage = join(repo, '.understudy', 'usage');
    const note = join(usage, 'test__agent.test.ts.1234abcd.json');
    write(note, {
      testPath: 'test/agent.test.ts',
      finishedAt: '2026-01-01T00:00:00.000Z',
      fixtures: { 'test/__cassettes__/agent.test.ts.cassette.json': ['$.fixtures[0]'] },
      stale: [
        {
          file: 'test/__cassettes__/agent.test.ts.cassette.json',
          path: '$.fixtures[0]',
          recordedIn: 'refunds > checks',
          test: 'refunds > checks',
          reason: 'the model changed: "gpt-4o-mini" → "gpt-4.1" since it was recorded',
        },
      ],
    });
    try {
      const result = cli(repo, ['fixtures', 'check']);
      expect(result.code).toBe(1);
      expect(result.out).toBe(
        'stale      test/__cassettes__/agent.test.ts.cassette.json $.fixtures[0] (test "refunds > checks"): ' +
          'the model changed: "gpt-4o-mini" → "gpt-4.1" since it was recorded\n' +
          '\n1 cassette fixture was stale in the last run. Record those tests again (npx understudy record --stale), review the diff, and commit it.\n',
      );
      // A folder that does not hold the cassette does not report it.
      expect(cli(repo, ['fixtures', 'check', 'test/fixtures']).code).toBe(0);
    } finally {
      rmSync(note);
    }
  });

  it('exits 2 outside a git repository or for a folder that does not exist', () => {
    const plain = mkdtempSync(join(tmpdir(), 'understudy-nogit-'));
    const outside = cli(plain, ['fixtures', 'check'], { GIT_CEILING_DIRECTORIES: tmpdir() });
    expect(outside.code).toBe(2);
    expect(outside.err).toContain('is not inside a git repository');
    expect(cli(repo, ['fixtures', 'check', 'nope'])).toMatchObject({
      code: 2,
      err: 'understudy fixtures check: nope does not exist\n',
    });
  });
});

describe('understudy validate on a cassette (the pre-commit scan)', () => {
  it('flags a credential with its line, and stale metadata edited by hand', () => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-scan-'));
    write(join(dir, 'clean.cassette.json'), {
      metadata: { recorder: 'jest-understudy', promptHash: 'aaaa', recordedAt: '2026-01-01T00:00:00.000Z' },
      fixtures: [{ ...fixture('hi'), metadata: { promptHash: 'aaaa' } }],
    });
    write(join(dir, 'leaky.cassette.json'), {
      metadata: { recorder: 'jest-understudy', promptHash: 'aaaa', recordedAt: 'yesterday' },
      fixtures: [
        {
          match: { userMessage: 'hi' },
          response: { content: 'use sk-proj-abcdefghijklmnopqrstuv123456' },
          metadata: { promptHash: 'bbbb' },
        },
      ],
    });
    const clean = cli(dir, ['validate', 'clean.cassette.json']);
    expect(clean.code).toBe(0);
    const leaky = cli(dir, ['validate', 'leaky.cassette.json']);
    expect(leaky.code).toBe(1);
    expect(leaky.out).toContain('leaky.cassette.json:13:25 at $: looks like a credential');
    expect(leaky.out).toContain(
      'looks like a credential (a key, a token, a password, a signed URL); a committed cassette or fixture file must not hold one',
    );
    expect(leaky.out).toContain('at $.metadata.recordedAt: is not a date (got "yesterday")');
    expect(leaky.out).toContain(
      'at $.metadata.promptHash: does not list the prompt hash bbbb its fixtures were recorded against',
    );
  });
});

describe('understudy record -- <jest args>', () => {
  let project: string;
  beforeAll(() => {
    // A stand-in Jest that reports how it was started.
    project = mkdtempSync(join(tmpdir(), 'understudy-recordcli-'));
    writeFileSync(join(project, 'package.json'), '{"name":"app","private":true}\n');
    mkdirSync(join(project, 'node_modules', 'jest', 'bin'), { recursive: true });
    writeFileSync(
      join(project, 'node_modules', 'jest', 'bin', 'jest.js'),
      'console.log(JSON.stringify({ mode: process.env.UNDERSTUDY_MODE, args: process.argv.slice(2) }));\n' +
        'process.exit(process.argv.includes("--fail") ? 1 : 0);\n',
    );
  });

  it("runs the project's Jest with UNDERSTUDY_MODE=record and passes the arguments through", () => {
    const ok = cli(project, ['record', '--', 'test/refunds.test.ts', '-t', 'refund'], {
      CI: undefined,
      OPENAI_API_KEY: 'sk-x',
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toEqual({ mode: 'record', args: ['test/refunds.test.ts', '-t', 'refund'] });
    const missing = cli(project, ['record', '--missing', '--', '--fail'], {
      CI: undefined,
      OPENAI_API_KEY: 'sk-x',
    });
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out).mode).toBe('record-missing');
    // The stand-in notes no test in the live run's ledger: the command says so after the runner's output.
    const live = cli(project, ['live'], { CI: undefined, ANTHROPIC_API_KEY: 'sk-ant-x' });
    expect(JSON.parse(live.out.split('\n')[0]!).mode).toBe('live');
    expect(live.code).toBe(1);
    expect(live.err).toContain('understudy live: no test ran live');
  });

  it('understudy live refuses a bad --repeat, --min-pass-rate or --refresh-above, and CI without --allow-ci, before the runner starts', () => {
    const env = { CI: undefined, OPENAI_API_KEY: 'sk-x' };
    for (const [args, said] of [
      [['--repeat', '0'], '--repeat takes a whole number of at least 1, received "0"'],
      [['--min-pass-rate', '1.5'], '--min-pass-rate takes a number from 0 to 1, received "1.5"'],
      [['--refresh-above', 'high'], '--refresh-above takes a number from 0 to 1, received "high"'],
      [['--budget-tokens', '-3'], '--budget-tokens takes a whole number of at least 1, received "-3"'],
    ] as const) {
      const refused = cli(project, ['live', ...args], env);
      expect([refused.code, refused.out]).toEqual([2, '']);
      expect(refused.err).toContain(said);
    }
    const ci = cli(project, ['live', '--repeat', '2'], { ...env, CI: '1' });
    expect([ci.code, ci.out]).toEqual([2, '']);
    expect(ci.err).toContain('understudy live: CI is set (CI="1")');
  });

  it('--stale re-records the tests the last replay found stale: their files and a -t naming exactly them', () => {
    const usage = join(project, '.understudy', 'usage');
    const env = { CI: undefined, OPENAI_API_KEY: 'sk-x' };
    expect(cli(project, ['record', '--stale'], env)).toMatchObject({
      code: 0,
      out: 'understudy record --stale: no stale cassette fixture in the last run (.understudy/usage); nothing to record\n',
    });
    mkdirSync(join(project, 'test'), { recursive: true });
    for (const name of ['refunds.test.ts', 'fresh.test.ts']) writeFileSync(join(project, 'test', name), '');
    write(join(usage, 'test__refunds.test.ts.11111111.json'), {
      testPath: 'test/refunds.test.ts',
      finishedAt: '2026-01-01T00:00:00.000Z',
      fixtures: {},
      stale: [
        {
          file: 'test/__cassettes__/refunds.test.ts.cassette.json',
          test: 'refunds > pays (twice?)',
          reason: 'x',
        },
        {
          file: 'test/__cassettes__/refunds.test.ts.cassette.json',
          recordedIn: 'refunds > checks',
          reason: 'y',
        },
      ],
    });
    write(join(usage, 'test__fresh.test.ts.22222222.json'), {
      testPath: 'test/fresh.test.ts',
      finishedAt: '2026-01-01T00:00:00.000Z',
      fixtures: {},
    });
    const run = cli(project, ['record', '--stale', '--', '--runInBand'], env);
    expect(run.code).toBe(0);
    expect(run.err).toContain('understudy record --stale: re-recording 2 tests in 1 file');
    expect(JSON.parse(run.out)).toEqual({
      mode: 'record',
      args: ['test/refunds.test.ts', '-t', '^(?:refunds pays \\(twice\\?\\)|refunds checks)$', '--runInBand'],
    });
    expect(new RegExp(JSON.parse(run.out).args[2]).test('refunds pays (twice?)')).toBe(true);
    expect(cli(project, ['record', '--stale', '--missing'], env)).toMatchObject({ code: 2 });
  });

  it('refuses on CI and without a key, with exit code 2, before starting Jest', () => {
    const onCI = cli(project, ['record', '--', 'x'], { CI: 'true', OPENAI_API_KEY: 'sk-x' });
    expect(onCI).toMatchObject({ code: 2, out: '' });
    expect(onCI.err).toContain(
      'understudy record: understudy record asks for record mode, but CI is set (CI="true")',
    );
    const noKey = cli(project, ['record'], {
      CI: undefined,
      OPENAI_API_KEY: undefined,
      ANTHROPIC_API_KEY: undefined,
      GEMINI_API_KEY: undefined,
      GOOGLE_API_KEY: undefined,
      GOOGLE_GENERATIVE_AI_API_KEY: undefined,
    });
    expect(noKey).toMatchObject({ code: 2, out: '' });
    expect(noKey.err).toContain(
      'no provider key is set. Set OPENAI_API_KEY (OpenAI), ANTHROPIC_API_KEY (Anthropic)',
    );
  });
});
