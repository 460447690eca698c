/**
 * The `understudy` CLI run as a process, from source (../support/source.ts). Exit codes:
 * 0 ok, 1 the check failed, 2 bad usage.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { testTrace } from '../../../src/trace/otlp';
import { SOURCE_CLI } from '../../support/source';

const root = resolve(__dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'understudy-cli-'));
function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [...SOURCE_CLI, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '', ...env },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const goodFixtures = file(
  'good.fixture.json',
  JSON.stringify({ fixtures: [{ match: {}, response: { content: 'hi' } }] }),
);
const badFixtures = file(
  'bad.fixture.yaml',
  'fixtures:\n  - match: { turnIndex: "1" }\n    response: { text: hi }\n',
);
const goodGolden = file(
  'ok.golden.yaml',
  'tasks:\n  - id: one\n    input: hi\n    expect: { terminalState: succeeded }\n',
);
const badGolden = file('bad.golden.yaml', 'tasks:\n  - id: one\n    prompt: hi\n');
const unknown = file('notes.json', '{"hello": 1}');
const trace = file(
  'a.trace.json',
  JSON.stringify(
    testTrace(
      {
        file: 'a.test.ts',
        name: 'agent > refunds',
        status: 'failed',
        errors: [{ phase: 'test', error: { name: 'Error', message: 'boom' } }],
      },
      {
        timeOrigin: 1_767_225_600_000,
        looseCalls: [],
        runs: [
          {
            index: 0,
            kind: 'run',
            phase: 'test',
            incomplete: false,
            terminalState: 'succeeded',
            finalMessage: 'Refunded.',
            startedAt: 1,
            durationMs: 3,
            modelCalls: [],
            toolCalls: [
              {
                id: 'c1',
                name: 'issue_refund',
                arguments: { orderId: 'A-1' },
                modelCallIndex: 0,
                fileModelCallIndex: 0,
                answered: true,
                result: { ok: true },
              },
            ],
            operations: [],
          },
        ],
      },
    ),
  ),
);

// The built `understudy` bin is exercised from an installed tarball by .ci/consumer.sh.
describe('understudy', () => {
  const run = cli;
  /** How the CLI shows a file of the temp folder: absolute, since it runs from the repository root. */
  const shown = (path: string) => path;

  it('--help lists the commands; each command has --help', () => {
    const top = run(['--help']);
    expect(top.code).toBe(0);
    for (const name of ['validate', 'report', 'golden']) expect(top.out).toContain(name);
    for (const args of [
      ['validate', '--help'],
      ['report', '--help'],
      ['golden', 'export', '--help'],
    ]) {
      const r = run(args);
      expect(r.code).toBe(0);
      expect(r.out).toContain('Exit codes:');
    }
  });

  it('validate: 0 when every file is valid, telling the kind of each', () => {
    const r = run(['validate', goodFixtures, goodGolden]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`✓ ${shown(goodFixtures)} (fixtures): 1 fixture`);
    expect(r.out).toContain(`✓ ${shown(goodGolden)} (golden): 1 task`);
  });

  it('validate: 1 with every problem named by file, line and JSON path', () => {
    const r = run(['validate', goodFixtures, badFixtures, badGolden]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`✗ ${shown(badFixtures)} (fixtures): 2 problems`);
    expect(r.out).toContain(
      `${shown(badFixtures)}:2:14 at $.fixtures[0].match.turnIndex: must be an integer ≥ 0 (got the string "1") — write 1 without quotes`,
    );
    expect(r.out).toContain(
      `${shown(badFixtures)}:3:17 at $.fixtures[0].response.text: unknown property "text" — did you mean "content"?`,
    );
    expect(r.out).toContain(
      `${shown(badGolden)}:3:5 at $.tasks[0].prompt: unknown property "prompt" — did you mean "input"?`,
    );
    expect(r.out).toContain('1 valid, 2 with problems (3 in all)');
  });

  it("validate: a named file of unknown kind is a problem, a glob's is skipped; --kind says what it is, 2 for a missing file", () => {
    const named = run(['validate', unknown]);
    expect(named.code).toBe(1);
    expect(named.out).toContain(`✗ ${shown(unknown)} (unknown): a problem`);
    expect(named.out).toContain(
      `${shown(unknown)} at $: was not checked: cannot tell what kind of file this is`,
    );
    const skipped = run(['validate', join(dir, 'notes.j*n')]);
    expect(skipped.code).toBe(0);
    expect(skipped.out).toContain(
      `${shown(unknown)} (unknown): skipped, cannot tell what kind of file this is`,
    );
    expect(run(['validate', '--kind', 'fixtures', unknown]).code).toBe(1);
    const missing = run(['validate', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope.json does not exist');
    expect(run(['validate']).code).toBe(2);
    expect(run(['validate', '--kind', 'bogus', goodFixtures]).code).toBe(2);
  });

  it('report: a tree in the terminal, --html writes the page; 1 for a file that is not a trace, 2 for a missing one', () => {
    const tree = run(['report', trace]);
    expect(tree.code).toBe(0);
    expect(tree.out).toContain('✗ agent > refunds (failed)');
    expect(tree.out).toContain('error in test: boom');
    expect(tree.out).toContain('└─ run 0 [run, test] succeeded');
    expect(tree.out).toContain('tool issue_refund {"orderId":"A-1"} → {"ok":true}  ok');
    const out = join(dir, 'page.html');
    const html = run(['report', trace, '--html', out]);
    expect(html.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('<title>✗ agent &gt; refunds</title>');
    expect(run(['report', goodFixtures]).code).toBe(1);
    expect(run(['report', join(dir, 'missing.trace.json')]).code).toBe(2);
  });

  it('golden export: JSONL to stdout or a file; 1 and nothing written when a file has problems', () => {
    const r = run(['golden', 'export', goodGolden]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      id: 'one',
      file: shown(goodGolden),
      input: 'hi',
      expected: { terminalState: 'succeeded' },
    });
    const out = join(dir, 'tasks.jsonl');
    expect(run(['golden', 'export', goodGolden, '-o', out]).code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
    const bad = run(['golden', 'export', goodGolden, badGolden, '-o', join(dir, 'never.jsonl')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('nothing written');
    expect(existsSync(join(dir, 'never.jsonl'))).toBe(false);
    expect(run(['golden', 'export', join(dir, '*.nothing.yaml')]).code).toBe(2);
  });

  it('report and golden export write no key in use, nor anything shaped like a credential', () => {
    const key = 'corp-gateway-secret-XYZ987';
    const env = { ANTHROPIC_API_KEY: key };
    // A trace from elsewhere (an older version, another tool) that holds the key in full.
    const foreign = file(
      'foreign.trace.json',
      readFileSync(trace, 'utf8').replace('boom', `boom with ${key} and Bearer abcdefghijklmnop`),
    );
    const tree = run(['report', foreign, '--full'], env);
    expect(tree.out).toContain('error in test: boom with [REDACTED] and Bearer [REDACTED]');
    const page = join(dir, `page ${key}.html`);
    expect(run(['report', foreign, '--html', page], env).code).toBe(0);
    const pages = readdirSync(dir).filter((n) => n.startsWith('page '));
    expect(pages).toEqual(['page [REDACTED].html']);
    expect(readFileSync(join(dir, pages[0]), 'utf8')).not.toContain(key);
    const golden = file('key.golden.yaml', `tasks:\n  - id: one\n    input: "use ${key}"\n`);
    const out = join(dir, 'key.jsonl');
    expect(run(['golden', 'export', golden, '-o', out], env).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).input).toBe('use [REDACTED]');
    expect(run(['golden', 'export', golden], env).out).not.toContain(key);
  });

  it('an unknown command or option is bad usage (2)', () => {
    expect(run(['frobnicate']).code).toBe(2);
    expect(run(['report', trace, '--bogus']).code).toBe(2);
  });
});
