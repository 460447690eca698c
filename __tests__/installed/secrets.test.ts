/**
 * Secrets by rule, from the installed package under Jest (CommonJS and ESM) and Vitest: credentials that no list names (query values
 * named client_secret / password / secret / appid, a presigned URL's X-Amz-Signature, a gateway
 * key in x-portkey-api-key, a Basic header's password, the base64 of a key in use) never reach
 * what the product writes: a failing test's trace and HTML timeline, the history, a recorded
 * cassette, writeFixtures, `understudy report`. What is not a credential stays readable.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import {
  freshFolder,
  type InstalledProjectRun,
  type InstalledRun,
  installedProject,
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

/** Which of `secrets` (label → value) show up below `dir`, in a file's name or its bytes. */
function leaksBelow(dir: string, secrets: Record<string, string>): string[] {
  return filesBelow(dir).flatMap((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    return Object.entries(secrets).flatMap(([label, value]) => [
      ...(file.includes(value) ? [`${label} in the name of ${file}`] : []),
      ...(text.includes(value) ? [`${label} in ${file}`] : []),
    ]);
  });
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

// Handed to the cases in variables whose names denote no credential, so the product can only
// recognise the values by rule (their names in a URL) or from the requests that carried them.
const SECRETS = {
  PLANTED_CLIENT_SECRET_VALUE: 'cs-9QmT4vXr2LpA',
  PLANTED_QUERY_PASSWORD_VALUE: 'qp-Hunter2Hunter2',
  PLANTED_QUERY_SECRET_VALUE: 'qs-S3cretW0rd77',
  PLANTED_SIGNATURE_VALUE: 'fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024',
  PLANTED_APPID_VALUE: 'owm7c1e9f0a2b3d4e5f',
  PLANTED_PORTKEY_VALUE: 'pkgw-LmN0pQ9rSt8U',
  PLANTED_BASIC_PASSWORD_VALUE: 'basic-Pa55-W0rd-42',
  PLANTED_SERVED_GATEWAY_VALUE: 'pkgw-served-Z9y8X7',
  PLANTED_SERVED_BASIC_VALUE: 'served-Pa55-W0rd-77',
};
const GATEWAY = 'corp-gateway-secret-XYZ987';

/** Each value, and the forms a careless agent wrote it in. */
const LOOKED_FOR: Record<string, string> = {
  ...SECRETS,
  'the gateway key': GATEWAY,
  'the gateway key in base64': b64(GATEWAY).replace(/=+$/, ''),
  'the gateway key in a Basic pair': b64(`svc:${GATEWAY}`).replace(/=+$/, ''),
  'the Basic pair': b64(`svc-reports:${SECRETS.PLANTED_BASIC_PASSWORD_VALUE}`).replace(/=+$/, ''),
  "the child's Basic pair": b64(`svc-child:${SECRETS.PLANTED_SERVED_BASIC_VALUE}`).replace(/=+$/, ''),
};

/**
 * The failing tests' and writeFixtures' cases, which share their process (the planted values),
 * run as two projects of one child per runner.
 */
const byRule = new Map<Runner, Promise<Record<'trace' | 'fixtures', InstalledProjectRun>>>();
function runByRule(runner: Runner) {
  const started =
    byRule.get(runner) ??
    runInstalledProjects(
      {
        trace: { cases: ['secrets-trace.case.js'] },
        fixtures: { cases: ['secrets-write-fixtures.case.js'] },
      },
      { ...RUNNERS[runner], env: { ...SECRETS, ANTHROPIC_API_KEY: GATEWAY } },
    );
  byRule.set(runner, started);
  return started;
}

describe.each(runnersOf(__filename))('secrets by rule in a failing test (%s)', (runner) => {
  let run: InstalledProjectRun;
  let trace: string;
  let html: string;
  let servedTrace = '';

  beforeAll(async () => {
    run = (await runByRule(runner)).trace;
    const folder = join(run.project, '.understudy', 'traces', 'secrets-trace.case.js');
    const written = filesBelow(folder);
    const base = written.find((f) => f.startsWith('leaks nothing from') && f.endsWith('.trace.json'));
    const served = written.find((f) => f.startsWith('leaks nothing a child') && f.endsWith('.trace.json'));
    if (served) servedTrace = readFileSync(join(folder, served), 'utf8');
    if (!base) throw new Error(`no trace written: ${written.join(', ')}\n${run.process.stderr}`);
    trace = readFileSync(join(folder, base), 'utf8');
    html = readFileSync(join(folder, base.replace(/\.json$/, '.html')), 'utf8');
  }, 90_000);

  it('fails each test for its own assertion, after the agent ran its requests', () => {
    expect(
      run.files[0].tests.map((t) => [t.status, /toHaveFinalMessage/.test(t.failureMessages.join('\n'))]),
    ).toEqual([
      ['failed', true],
      ['failed', true],
    ]);
    expect(servedTrace).toContain('Hello, child. then refused');
    // The trace saw every step the credentials travelled through.
    for (const step of [
      'https://api.openai.com/v1/chat/completions?client_secret=',
      'https://reports.s3.amazonaws.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256',
      'https://api.weather.example.test/data/2.5/weather?q=Oslo',
      'upload refused for ',
    ])
      expect(trace).toContain(step);
  });

  it('writes no credential into the trace, the timeline, the history or a file name', () => {
    expect(leaksBelow(join(run.project, '.understudy'), LOOKED_FOR)).toEqual([]);
  });

  it('blanks the values and keeps their names and everything that is not a credential', () => {
    for (const text of [trace, html.replaceAll('&amp;', '&')]) {
      expect(text).toContain(
        'client_secret=[REDACTED]&password=[REDACTED]&secret=[REDACTED]&api-version=2024-10-21',
      );
      expect(text).toContain('X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-Signature=[REDACTED]');
      expect(text).toContain('weather?q=Oslo&appid=[REDACTED]');
    }
    expect(trace).toContain('upload refused for [REDACTED] via gateway [REDACTED] (key [REDACTED])');
    expect(servedTrace).toContain('Hello, child. then refused [REDACTED] at [REDACTED]');
    expect(trace).toContain('gen_ai.usage.input_tokens');
    expect(trace).toContain('Q3: revenue up 4%');
  });

  it('understudy report prints and renders a trace from anywhere (credentials put back in) with them blanked', () => {
    const foreign = trace
      .replaceAll('X-Amz-Signature=[REDACTED]', `X-Amz-Signature=${SECRETS.PLANTED_SIGNATURE_VALUE}`)
      .replaceAll('client_secret=[REDACTED]', `client_secret=${SECRETS.PLANTED_CLIENT_SECRET_VALUE}`);
    expect(foreign).toContain(SECRETS.PLANTED_SIGNATURE_VALUE);
    const dir = join(run.project, 'elsewhere');
    mkdirSync(dir);
    writeFileSync(join(dir, 'foreign.trace.json'), foreign);
    const main = join(installedProject(), 'node_modules', 'jest-understudy', 'dist', 'src', 'cli', 'main.js');
    const report = (args: string[]) =>
      spawnSync(process.execPath, [main, 'report', ...args], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' },
        timeout: 60_000,
      });
    const tree = report(['foreign.trace.json']);
    const page = report(['foreign.trace.json', '--html', 'page.html']);
    expect([tree.status, page.status, tree.stderr, page.stderr]).toEqual([0, 0, '', '']);
    const html = readFileSync(join(dir, 'page.html'), 'utf8');
    expect(tree.stdout).toContain('client_secret=[REDACTED]');
    expect(html).toContain('X-Amz-Signature=[REDACTED]');
    expect(html).toContain('client_secret=[REDACTED]');
    for (const text of [tree.stdout, html])
      for (const value of [SECRETS.PLANTED_SIGNATURE_VALUE, SECRETS.PLANTED_CLIENT_SECRET_VALUE])
        expect(text).not.toContain(value);
  });
});

describe.each(runnersOf(__filename))('a recorded cassette, by rule (%s)', (runner) => {
  const KEY = 'sk-test-SECRETS0123456789abcdefXYZ';
  let upstream: FakeUpstream;
  let run: InstalledRun;

  beforeAll(async () => {
    upstream = await startFakeUpstream({ openai: KEY, anthropic: 'unused', gemini: 'unused' });
    run = await runInstalled({
      cases: ['secrets-record.case.js'],
      ...RUNNERS[runner],
      understudy: {
        providers: { openai: { baseURL: `${upstream.url}/openai/v1` } },
        cassetteDir: 'cassettes',
      },
      cli: ['record'],
      env: { CI: undefined, PLANTED_UPSTREAM: upstream.url, OPENAI_API_KEY: KEY, ...SECRETS },
    });
  }, 90_000);

  afterAll(() => upstream?.close());

  it('records, and the cassette holds no credential a rule recognises or a request carried', () => {
    expect(run.files[0].tests.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual([
      ['looks the report up and answers', 'passed', ''],
    ]);
    const cassette = readFileSync(
      join(run.project, 'cassettes', 'secrets-record.case.js.cassette.json'),
      'utf8',
    );
    expect(cassette).toContain('X-Amz-Signature=[REDACTED]');
    expect(cassette).toContain('client_secret=[REDACTED]');
    expect(
      leaksBelow(join(run.project, 'cassettes'), {
        ...LOOKED_FOR,
        'the OpenAI key': KEY,
        'its base64': b64(KEY).slice(0, 30),
      }),
    ).toEqual([]);
    expect(leaksBelow(join(run.project, '.understudy'), { ...LOOKED_FOR, 'the OpenAI key': KEY })).toEqual(
      [],
    );
  });
});

describe.each(runnersOf(__filename))('writeFixtures, by rule (%s)', (runner) => {
  let run: InstalledProjectRun;

  beforeAll(async () => {
    run = (await runByRule(runner)).fixtures;
  }, 90_000);

  it('blanks credentials a rule recognises, and refuses a file holding the base64 of a key in use', () => {
    const statuses = Object.fromEntries(
      run.files[0].tests.map((t) => [t.title, [t.status, t.failureMessages.join('\n')]]),
    );
    expect(statuses).toEqual({
      'writes the fixtures with the credentials blanked': ['passed', ''],
      'refuses to write the base64 of a key in use': ['passed', ''],
    });
    const written = readFileSync(join(run.project, 'written', 'report.fixture.json'), 'utf8');
    expect(written).toContain('client_secret=[REDACTED]&password=[REDACTED]');
    expect(leaksBelow(join(run.project, 'written'), LOOKED_FOR)).toEqual([]);
    expect(existsSync(join(run.project, 'written', 'leak.fixture.json'))).toBe(false);
  });
});

describe('understudy validate: every file that can answer model calls is scanned, a named file it cannot check fails', () => {
  let dir: string;
  const validate = (args: string[], env: Record<string, string> = {}) => {
    const main = join(installedProject(), 'node_modules', 'jest-understudy', 'dist', 'src', 'cli', 'main.js');
    const r = spawnSync(process.execPath, [main, 'validate', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '', ...env },
      timeout: 60_000,
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const fixture = (content: string, extra: Record<string, unknown> = {}) =>
    `${JSON.stringify({ fixtures: [{ match: { userMessage: 'report' }, response: { content, ...extra } }] }, null, 2)}\n`;

  beforeAll(() => {
    dir = freshFolder('secrets-validate-');
    const files: Record<string, string> = {
      'report.fixture.json': fixture(
        `Fetched https://auth.example.test/token?client_id=app&client_secret=${SECRETS.PLANTED_CLIENT_SECRET_VALUE}`,
      ),
      // A fixture file by content only: no cassette name, no recording metadata.
      'answers.json': fixture(
        `See https://reports.s3.amazonaws.com/q3.pdf?X-Amz-Date=20260101T000000Z&X-Amz-Signature=${SECRETS.PLANTED_SIGNATURE_VALUE}`,
      ),
      'encoded.fixture.json': fixture(`Authenticated as ${b64(`svc:${GATEWAY}`)}`),
      'clean.fixture.json': fixture('Revenue is up 4% (max_tokens=64, alt=sse).', {
        usage: { inputTokens: 3, outputTokens: 9 },
      }),
      'notes.txt': 'not a fixture file\n',
      'README.md': '# fixtures\n',
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  });

  it('passes a clean fixture file', () => {
    const r = validate(['clean.fixture.json']);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(r.out).toContain('✓ clean.fixture.json (fixtures): 1 fixture');
  });

  it('fails a fixture file (not a cassette) holding a credential a rule recognises, naming its line', () => {
    const r = validate(['report.fixture.json']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/report\.fixture\.json:\d+:\d+ at \$: looks like a credential/);
    expect(r.out).not.toContain(SECRETS.PLANTED_CLIENT_SECRET_VALUE);
  });

  it('fails a fixture file told by its content, holding a presigned URL', () => {
    const r = validate(['answers.json']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('✗ answers.json (fixtures)');
    expect(r.out).toMatch(/answers\.json:\d+:\d+ at \$: looks like a credential/);
  });

  it('fails a fixture file holding the base64 of a key in use', () => {
    const r = validate(['encoded.fixture.json'], { ANTHROPIC_API_KEY: GATEWAY });
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'encoded.fixture.json at $: contains the value of ANTHROPIC_API_KEY, base64-encoded',
    );
    expect(validate(['encoded.fixture.json']).code).toBe(0);
  });

  it('fails for a named file it cannot check, and still checks the others', () => {
    const r = validate(['notes.txt', 'clean.fixture.json']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('✗ notes.txt (unknown): a problem');
    expect(r.out).toContain('notes.txt at $: was not checked: cannot tell what kind of file this is');
    expect(r.out).toContain('✓ clean.fixture.json (fixtures): 1 fixture');
    expect(r.out).not.toContain('skipped');
  });

  it("skips a glob's match of no known kind, saying so", () => {
    const r = validate(['*.md', 'clean.fixture.json']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('- README.md (unknown): skipped, cannot tell what kind of file this is');
  });
});
