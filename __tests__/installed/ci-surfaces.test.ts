/**
 * Failures where the team looks, from the installed package under Jest (CommonJS and ESM) and
 * Vitest: under a simulated GitHub Actions (`GITHUB_ACTIONS=true`, `GITHUB_STEP_SUMMARY` a temp file,
 * `GITHUB_WORKSPACE` the project), the reporter appends a job summary with each failing test's
 * trajectory diff and its trace and timeline, and prints `::error` annotations at the failing
 * `expect`; outside GitHub Actions it writes neither. The `junit` option writes JUnit XML valid
 * against Jenkins' junit-10.xsd. No surface holds the keys a failing message carried.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  CASES,
  freshFolder,
  type InstalledRun,
  RUNNERS,
  type Runner,
  runInstalled,
} from '../support/installed';
import { runnersOf } from '../support/runner-tier';

const PROVIDER_KEY = 'sk-proj-CISURFACES0123456789abcdefghijklmnop';
const { GATEWAY_KEY } = require('./cases/ci-surfaces-gateway.cjs') as { GATEWAY_KEY: string };
const SCHEMA = join(__dirname, '..', 'support', 'junit-10.xsd');
const EARLIER = '## An earlier step\n\nIts own summary.\n';

/** The 1-based line of the case file that holds `marker`. */
const lineOf = (file: string, marker: string) =>
  readFileSync(join(CASES, file), 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(marker)) + 1;

/** The line of the case file's `expect` that fails (marked with a comment). */
const failingLine = (file: string) => lineOf(file, '// ci-surfaces: failing expect');

/** The line of the test that fails from no line of the file: the one after its marker. */
const testLine = () => lineOf('ci-surfaces-agent.case.js', '(ci-surfaces: test line below)') + 1;

const JUNIT = 'reports/junit.xml';
/** A user's reporter file that passes options to the Vitest reporter (the plugin's then stands aside). */
const VITEST_REPORTER = `import Reporter from 'jest-understudy/vitest/reporter';
export default class extends Reporter {
  constructor() {
    super({ junit: ${JSON.stringify(JUNIT)} });
  }
}
`;

const CASE_FILES = ['ci-surfaces-agent.case.js', 'ci-surfaces-secret.case.js'];

/** The project with the reporter the preset or the plugin installs. */
const withDefaults = (runner: Runner) => ({ cases: CASE_FILES, ...RUNNERS[runner] });

/** The project with the reporter named in the config, with the `junit` option. */
function withJunit(runner: Runner) {
  if (runner === 'vitest')
    return {
      ...withDefaults(runner),
      files: { 'ci-reporter.mjs': VITEST_REPORTER },
      args: ['--reporter=./ci-reporter.mjs'],
    };
  return {
    ...withDefaults(runner),
    config: { reporters: ['default', ['jest-understudy/reporter', { junit: JUNIT }]] },
  };
}

/** A GitHub job's step summary file, holding what an earlier step of the job wrote. */
function stepSummary(folder: string): string {
  const file = join(dirname(folder), `${basename(folder)}-step-summary.md`);
  writeFileSync(file, EARLIER);
  return file;
}

/** A report of `understudy live --repeat` in the trace folder, as the nightly job leaves it. */
const LIVE_REPORT = {
  tests: [
    {
      file: 'ci-surfaces-agent.case.js',
      name: 'refunds › refunds a damaged order',
      runs: 10,
      passed: 9,
      minPassRate: 0.8,
      trajectories: [{ tools: ['lookup_order', 'issue_refund'], terminal: 'stop', count: 9 }],
    },
  ],
};

const KEY_ENV = { OPENAI_API_KEY: PROVIDER_KEY, CI: 'true' };

const githubEnv = (summary: string, workspace: string) => ({
  ...KEY_ENV,
  GITHUB_ACTIONS: 'true',
  GITHUB_STEP_SUMMARY: summary,
  GITHUB_WORKSPACE: workspace,
});

describe.each(runnersOf(__filename))('CI surfaces from the installed package (%s)', (runner) => {
  const label = runner === 'vitest' ? 'Vitest' : 'Jest';
  let github: InstalledRun;
  let local: InstalledRun;
  let summaryFile: string;
  let localSummary: string;

  beforeAll(async () => {
    const folder = freshFolder('ci-');
    summaryFile = stepSummary(folder);
    github = await runInstalled({
      ...withDefaults(runner),
      files: { '.understudy/traces/live-report.json': JSON.stringify(LIVE_REPORT) },
      project: folder,
      env: githubEnv(summaryFile, folder),
    });
    localSummary = `${summaryFile}.local`;
    local = await runInstalled({
      ...withJunit(runner),
      env: {
        ...KEY_ENV,
        GITHUB_ACTIONS: undefined,
        GITHUB_STEP_SUMMARY: localSummary,
        GITHUB_WORKSPACE: undefined,
      },
    });
  }, 240_000);

  const statuses = (run: InstalledRun) =>
    Object.fromEntries(run.files.flatMap((f) => f.tests.map((t) => [t.title, t.status])));

  it('runs the suite: one passing test, three failing', () => {
    expect(statuses(github)).toEqual({
      'refunds a damaged order': 'passed',
      'refunds instead of cancelling': 'failed',
      'asks what no fixture answers': 'failed',
      'fails with the keys in its message': 'failed',
    });
    expect(github.code).toBe(1);
  });

  it('appends a job summary: counts, each failing test with its trajectory diff, line, trace and timeline', () => {
    const text = readFileSync(summaryFile, 'utf8');
    // Appended after what the step wrote before, once.
    expect(text.startsWith(EARLIER)).toBe(true);
    const ours = text.slice(EARLIER.length);
    expect(ours.match(/## ❌ jest-understudy/g)).toHaveLength(1);
    expect(ours).toContain(`## ❌ jest-understudy (${label}): 3 failed, 1 passed`);
    expect(ours).toMatch(/\| 4 \| 1 \| 3 \| 0 \| 4 \| 7 \| 1 \| 0 \|/);
    const section = ours.slice(ours.indexOf('refunds instead of cancelling'));
    expect(ours).toContain('#### ❌ ci-surfaces-agent.case.js › refunds › refunds instead of cancelling');
    expect(section).toContain(`At \`ci-surfaces-agent.case.js:${failingLine('ci-surfaces-agent.case.js')}\``);
    expect(section).toContain('Trajectory (`toHaveCalledToolSequence`');
    expect(section).toContain('```diff\n  lookup_order\n- issue_refund\n+ cancel_order\n```');
    const trace =
      '.understudy/traces/ci-surfaces-agent.case.js/refunds › refunds instead of cancelling.trace';
    expect(section).toContain(`Trace: \`${trace}.json\` · Timeline: \`${trace}.html\``);
    expect(existsSync(join(github.project, `${trace}.json`))).toBe(true);
    expect(existsSync(join(github.project, `${trace}.html`))).toBe(true);
    // The passing test is counted, not listed as a failure; the live report's table ends the summary.
    const [failures, live] = ours.split('### Live pass rates');
    expect(failures).not.toContain('refunds a damaged order');
    expect(live).toContain(
      '| ci-surfaces-agent.case.js › refunds › refunds a damaged order | ✅ 90% | 9/10 | 80% | 9× lookup\\_order → issue\\_refund (stop) |',
    );
  });

  it('annotates the failing `expect` line of each failing test on standard output, escaped', () => {
    const lines = github.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(lines).toHaveLength(3);
    const agent = lines.find((l) => l.includes('refunds instead of cancelling'));
    expect(agent).toMatch(
      new RegExp(
        `^::error file=ci-surfaces-agent\\.case\\.js,line=${failingLine('ci-surfaces-agent.case.js')},col=\\d+,title=ci-surfaces-agent\\.case\\.js › refunds › refunds instead of cancelling::`,
      ),
    );
    // The message is one line: its line breaks escaped as %0A, as GitHub's rules say.
    expect(agent).toContain('toHaveCalledToolSequence');
    expect(agent).toContain('%0A');
    const secret = lines.find((l) => l.includes('fails with the keys'));
    expect(secret).toMatch(
      new RegExp(
        `^::error file=ci-surfaces-secret\\.case\\.js,line=${failingLine('ci-surfaces-secret.case.js')},`,
      ),
    );
  });

  it("annotates a failure that comes from no line of the test file (an unmatched request) at the test's line", () => {
    const line = github.stdout
      .split('\n')
      .find((l) => l.startsWith('::error ') && l.includes('asks what no fixture answers'));
    expect(line).toMatch(
      new RegExp(
        `^::error file=ci-surfaces-agent\\.case\\.js,line=${testLine()},(col=\\d+,)?title=ci-surfaces-agent\\.case\\.js › refunds › asks what no fixture answers::No fixture matched this openai\\.chat request`,
      ),
    );
  });

  it('writes JUnit XML valid against junit-10.xsd, with the failure, its type and the trace paths', () => {
    const path = join(local.project, JUNIT);
    const xml = readFileSync(path, 'utf8');
    // xmllint exits non-zero with the reason when the document breaks the schema.
    execFileSync('xmllint', ['--noout', '--schema', SCHEMA, path], { stdio: 'pipe' });
    expect(xml).toMatch(
      /<testsuite name="ci-surfaces-agent\.case\.js" tests="3" failures="2" errors="0" skipped="0" time="[\d.]+"/,
    );
    expect(xml).toMatch(
      /<testcase name="refunds › refunds a damaged order" classname="ci-surfaces-agent\.case\.js" time="[\d.]+"\/>/,
    );
    const failing = xml.slice(xml.indexOf('<testcase name="refunds › refunds instead of cancelling"'));
    expect(failing).toMatch(
      /^<testcase [^>]+>\s*<failure message="[^"]*toHaveCalledToolSequence[^"]*" type="\w+">/,
    );
    const trace =
      '.understudy/traces/ci-surfaces-agent.case.js/refunds › refunds instead of cancelling.trace';
    expect(xml).toContain(
      `<property name="understudy.trace: refunds › refunds instead of cancelling" value="${trace}.json"/>`,
    );
    expect(xml).toContain(
      `<property name="understudy.timeline: refunds › refunds instead of cancelling" value="${trace}.html"/>`,
    );
    expect(failing).toContain('- issue_refund\n+ cancel_order');
  });

  it('writes no key a failing message held: summary, annotations and JUnit', () => {
    const written = [
      readFileSync(summaryFile, 'utf8'),
      github.stdout
        .split('\n')
        .filter((l) => l.startsWith('::'))
        .join('\n'),
      readFileSync(join(local.project, JUNIT), 'utf8'),
    ];
    for (const text of written) {
      expect(text).toContain('fails with the keys in its message');
      expect(text).not.toContain(PROVIDER_KEY);
      expect(text).not.toContain(GATEWAY_KEY);
      expect(text).not.toContain('CISURFACES');
    }
  });

  it('writes no summary and no annotation outside GitHub Actions', () => {
    expect(statuses(local)['refunds instead of cancelling']).toBe('failed');
    expect(existsSync(localSummary)).toBe(false);
    expect(local.stdout).not.toContain('::error');
    // And the JUnit report only where the option asks for it.
    expect(existsSync(join(github.project, JUNIT))).toBe(false);
  });
});

describe("Vitest: the reporter named with options, and Vitest's own github-actions reporter (installed package)", () => {
  let run: InstalledRun;
  let summaryFile: string;
  let withVitests: InstalledRun;
  let withVitestsSummary: string;

  beforeAll(async () => {
    const folder = freshFolder('ci-named-');
    summaryFile = stepSummary(folder);
    run = await runInstalled({
      ...withJunit('vitest'),
      project: folder,
      env: githubEnv(summaryFile, folder),
    });
    const other = freshFolder('ci-vitest-annotates-');
    withVitestsSummary = stepSummary(other);
    withVitests = await runInstalled({
      ...withDefaults('vitest'),
      args: ['--reporter=github-actions'],
      project: other,
      env: githubEnv(withVitestsSummary, other),
    });
  }, 180_000);

  it("leaves the annotations to Vitest's github-actions reporter when it runs (none twice), and writes the summary", () => {
    const errors = withVitests.stdout.split('\n').filter((l) => l.startsWith('::error '));
    // Vitest's own, one per failing test (its properties: file, title, line, column); none of ours (col=).
    expect(errors.filter((l) => l.includes('refunds instead of cancelling'))).toHaveLength(1);
    expect(errors.some((l) => /,col=\d+,title=/.test(l))).toBe(false);
    expect(readFileSync(withVitestsSummary, 'utf8')).toContain(
      '## ❌ jest-understudy (Vitest): 3 failed, 1 passed',
    );
  });

  it("writes the summary and the annotations once: the plugin's own reporter stands aside", () => {
    const text = readFileSync(summaryFile, 'utf8');
    expect(text.match(/## ❌ jest-understudy \(Vitest\): 3 failed, 1 passed/g)).toHaveLength(1);
    expect(run.stdout.split('\n').filter((l) => l.startsWith('::error '))).toHaveLength(3);
    expect(run.stderr.match(/^jest-understudy$/gm)).toHaveLength(1);
    execFileSync('xmllint', ['--noout', '--schema', SCHEMA, join(run.project, JUNIT)], { stdio: 'pipe' });
  });
});
