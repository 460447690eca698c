/**
 * `understudy live [--repeat N] [--tag …] [--min-pass-rate R] [--budget-tokens T] [--budget-usd X]
 * [--refresh-above S] [--allow-ci] -- <runner args>`: the nightly layer. Runs the project's
 * tests (Jest or Vitest) against the real provider N times, each repetition one runner run
 * whose test files note what they did in a ledger (src/nightly/ledger.ts); stops starting
 * repetitions, and the recording stops sending calls, once the budget is spent; then reports
 * per test its pass rate against its gate, its trajectories, percentiles and drift from its
 * cassette, writes the report (JSON, HTML) to the trace folder, and re-records the drifted
 * cassettes when asked.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { json, writeFile } from '../../files/write';
import { renderLiveReport } from '../../nightly/html';
import {
  BUDGET_VARIABLE,
  type BudgetCap,
  capReached,
  LEDGER_VARIABLE,
  type LedgerLine,
  REPEAT_VARIABLE,
  readLedger,
  spendOf,
} from '../../nightly/ledger';
import { buildReport, type LiveReport, reportProblems } from '../../nightly/report';
import { ALLOW_CI_VARIABLE, isCI } from '../../record/mode';
import { RUNNER_NAMES, type RunnerName } from '../runner';
import { runRunner, testsArguments } from './record';

interface LiveOptions {
  repeat: number;
  tag?: string[];
  minPassRate: number;
  budgetTokens?: number;
  budgetUsd?: number;
  refreshAbove?: number;
  allowCi?: boolean;
  runner?: RunnerName;
  out?: string;
}

const integer = (name: string, min: number) => (text: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new InvalidArgumentError(
      `${name} takes a whole number of at least ${min}, received ${JSON.stringify(text)}`,
    );
  return n;
};
const number = (name: string, max?: number) => (text: string) => {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || (max !== undefined && n > max))
    throw new InvalidArgumentError(
      `${name} takes a number from 0${max === undefined ? '' : ` to ${max}`}, received ${JSON.stringify(text)}`,
    );
  return n;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function usage(message: string): void {
  process.stderr.write(`understudy live: ${message}\n`);
  process.exitCode = 2;
}

/** The trace folder the tests wrote to (their `traceDir`), else `.understudy/traces` here. */
function traceFolder(lines: readonly LedgerLine[], out: string | undefined): string {
  if (out) return resolve(out);
  const test = lines.find((l) => l.kind === 'test');
  return test?.kind === 'test' ? test.traceDir : resolve('.understudy', 'traces');
}

function printSummary(report: LiveReport, written: { json: string; html: string }): void {
  const rel = (p: string) => relative(process.cwd(), p) || p;
  const out: string[] = [
    '',
    `understudy live: ${plural(report.repetitions, 'repetition')} of ${plural(report.tests.length, 'test')}`,
  ];
  for (const t of report.tests) {
    const rate =
      t.passRate === null ? 'not run' : `${Math.round(t.passRate * 1000) / 10}% (${t.passed}/${t.runs})`;
    const gate =
      t.gate === 'failed'
        ? `FAILED, below ${t.minPassRate * 100}%`
        : t.gate === 'passed'
          ? 'ok'
          : 'no run to gate';
    out.push(`  ${t.name} (${t.file}): ${rate} ${gate}`);
    for (const x of t.trajectories)
      out.push(`    ${x.count}× ${x.tools.join(' → ') || '(no tool)'} ⇒ ${x.terminal}`);
    if (t.latencyMs)
      out.push(
        `    latency p50 ${t.latencyMs.p50} ms, p90 ${t.latencyMs.p90} ms; tokens p50 ${t.tokens?.p50}, p90 ${t.tokens?.p90}`,
      );
    if (t.drift.score !== null) out.push(`    drift ${t.drift.score} from ${t.drift.cassette}`);
    for (const change of t.drift.changes) out.push(`      ${change}`);
  }
  const b = report.budget;
  out.push(
    `  spent ${b.spentTokens} tokens, $${b.spentUsd.toFixed(4)}${b.unpriced.length > 0 ? ` (no price for ${b.unpriced.join(', ')})` : ''}`,
  );
  if (b.reached) {
    const missing = report.tests.filter((t) => t.stopped + t.notRun > 0);
    out.push(`  the budget stopped the run: ${b.reached}`);
    for (const t of missing)
      out.push(
        `    not run: ${t.name} (${t.file}), ${plural(t.stopped, 'run')} stopped, ${plural(t.notRun, 'run')} never started`,
      );
  }
  out.push(`  report: ${rel(written.json)} and ${rel(written.html)}`, '');
  process.stdout.write(out.join('\n'));
}

async function runLive(runnerArgs: string[], options: LiveOptions): Promise<void> {
  const tags = (options.tag ?? []).flatMap((t) => t.split(',')).map((t) => t.replace(/^@/, '').trim());
  const bad = tags.find((t) => !/^[\w.:-]+$/.test(t));
  if (bad !== undefined)
    return usage(`--tag ${JSON.stringify(bad)} is not a tag: letters, digits, _ . : - (e.g. --tag nightly)`);
  if (isCI(process.env) && !options.allowCi)
    return usage(
      `CI is set (CI=${JSON.stringify(process.env.CI)}): live mode calls the real provider with your key and spends money, so on CI ` +
        `it runs only when the job says so with --allow-ci (a nightly job; pull requests replay cassettes)${options.refreshAbove !== undefined ? ', and --refresh-above re-records cassettes, which CI never does unless --allow-ci says so' : ''}.`,
    );
  const cap: BudgetCap = {
    ...(options.budgetTokens !== undefined && { tokens: options.budgetTokens }),
    ...(options.budgetUsd !== undefined && { usd: options.budgetUsd }),
  };
  const ledger = mkdtempSync(join(tmpdir(), 'understudy-live-'));
  try {
    const env: Record<string, string> = {
      [LEDGER_VARIABLE]: ledger,
      ...(Object.keys(cap).length > 0 && { [BUDGET_VARIABLE]: JSON.stringify(cap) }),
      ...(options.allowCi && isCI(process.env) && { [ALLOW_CI_VARIABLE]: '1' }),
    };
    let repetitions = 0;
    let runner: RunnerName | undefined = options.runner;
    let reached: string | undefined;
    /** Repetitions whose runner exited with an error, and its code. */
    const failedRuns = new Map<number, number>();
    for (let n = 1; n <= options.repeat; n++) {
      reached = capReached(cap, spendOf(readLedger(ledger)));
      if (reached) break;
      if (options.repeat > 1) process.stderr.write(`understudy live: repetition ${n} of ${options.repeat}\n`);
      const run = await runRunner('live', 'live', runnerArgs, {
        tags,
        chosen: runner,
        env: { ...env, [REPEAT_VARIABLE]: String(n) },
      });
      if (!run.ran) {
        process.exitCode = 2;
        return;
      }
      runner = run.runner;
      repetitions = n;
      if (run.code !== 0) failedRuns.set(n, run.code);
    }
    const lines = readLedger(ledger);
    const spend = spendOf(lines);
    // The cap reached in the last repetition stopped the run only if it refused a call there.
    const after = capReached(cap, spend);
    reached ??= after !== undefined && lines.some((l) => l.kind === 'refused') ? after : undefined;
    const report = buildReport({
      lines,
      runner: runner ?? 'jest',
      repeat: options.repeat,
      repetitions,
      minPassRate: options.minPassRate,
      cap,
      spend,
      reached,
      cwd: process.cwd(),
    });
    if (report.tests.length === 0) {
      process.stderr.write(
        'understudy live: no test ran live: did the runner run any test file under jest-understudy (the preset, or the Vitest plugin)?\n',
      );
      report.exitCode = 1;
    }
    // A runner that failed where no test run did (a file that cannot load, an afterAll hook) fails the command.
    for (const [n, code] of failedRuns) {
      const explained = lines.some(
        (l) => l.repeat === n && ((l.kind === 'test' && l.status === 'failed') || l.kind === 'refused'),
      );
      if (explained) continue;
      process.stderr.write(
        `understudy live: in repetition ${n} the runner failed (exit code ${code}) though no test run failed: see its output above\n`,
      );
      report.exitCode = 1;
    }
    if (options.refreshAbove !== undefined)
      await refresh(report, lines, { above: options.refreshAbove, runner, tags, runnerArgs });
    const problems = reportProblems(report);
    if (problems.length > 0)
      throw new Error(
        `the live report does not match its schema (a bug in jest-understudy): ${problems.join('; ')}`,
      );
    const folder = traceFolder(lines, options.out);
    // Through the package's writer: whatever a test name or path holds, no key in use is written.
    const written = {
      json: writeFile(join(folder, 'live-report.json'), json(report), { atomic: true }),
      html: writeFile(join(folder, 'live-report.html'), renderLiveReport(report), { atomic: true }),
    };
    printSummary(report, written);
    process.exitCode = report.exitCode;
  } finally {
    rmSync(ledger, { recursive: true, force: true });
  }
}

/**
 * Re-records, in record mode, the tests whose drift is above `above`: their files, a `-t`
 * pattern naming exactly them. Record mode rewrites only those tests' fixtures in each cassette.
 */
async function refresh(
  report: LiveReport,
  lines: readonly LedgerLine[],
  how: { above: number; runner: RunnerName | undefined; tags: string[]; runnerArgs: string[] },
): Promise<void> {
  const { above, runner, tags, runnerArgs } = how;
  const drifted = report.tests.filter((t) => t.drift.score !== null && t.drift.score > above);
  if (drifted.length === 0) {
    report.refresh = { above, tests: [], cassettes: [], exitCode: 0 };
    process.stderr.write(`understudy live: no test drifted above ${above}; no cassette re-recorded\n`);
    return;
  }
  const files = new Set<string>();
  for (const t of drifted) {
    const line = lines.find(
      (l) =>
        l.kind === 'test' &&
        l.test === t.name &&
        relative(process.cwd(), l.file).split('\\').join('/') === t.file,
    );
    if (line) files.add(line.file);
  }
  const cassettes = [...new Set(drifted.map((t) => t.drift.cassette))];
  const before = new Map(cassettes.map((c) => [c, mtimeOf(c)]));
  process.stderr.write(
    `understudy live: re-recording ${plural(drifted.length, 'drifted test')} (drift above ${above}) in record mode\n`,
  );
  // The run's own runner arguments (its config), then the drifted tests' files and a -t naming them.
  const args = [
    ...runnerArgs,
    ...testsArguments(
      files,
      drifted.map((t) => t.name),
    ),
  ];
  const run = await runRunner('record', 'live', args, {
    tags,
    chosen: runner,
    env: isCI(process.env) ? { [ALLOW_CI_VARIABLE]: '1' } : {},
  });
  for (const t of drifted)
    t.drift.refreshed = run.code === 0 && mtimeOf(t.drift.cassette) !== before.get(t.drift.cassette);
  report.refresh = { above, tests: drifted.map((t) => t.name), cassettes, exitCode: run.code };
  if (run.code !== 0) {
    process.stderr.write(
      'understudy live: re-recording failed; record mode writes nothing for a failing test file\n',
    );
    report.exitCode = 1;
  } else
    process.stderr.write(
      `understudy live: re-recorded ${cassettes.join(', ')}; review the change (git diff) before you commit it\n`,
    );
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

export function registerLive(program: Command): void {
  program
    .command('live')
    .description(
      'run the tests (Jest or Vitest) in live mode against the real provider, N times: pass rates and gates, trajectories, a budget cap, drift from the cassettes (the nightly layer)',
    )
    .argument('[runner-args...]', 'arguments for the test runner, after --')
    .addOption(
      new Option('--repeat <n>', 'run each selected test n times')
        .argParser(integer('--repeat', 1))
        .default(1),
    )
    .option('--tag <tag...>', 'run only the tests with one of these tags (the others are skipped)')
    .addOption(
      new Option(
        '--min-pass-rate <rate>',
        "the share of a test's runs that must pass, 0 to 1 (live(name, fn, { minPassRate }) overrides it per test)",
      )
        .argParser(number('--min-pass-rate', 1))
        .default(1),
    )
    .addOption(
      new Option('--budget-tokens <n>', 'stop once the calls have used this many tokens').argParser(
        integer('--budget-tokens', 1),
      ),
    )
    .addOption(
      new Option(
        '--budget-usd <usd>',
        'stop once the calls have cost this much (from the price table)',
      ).argParser(number('--budget-usd')),
    )
    .addOption(
      new Option(
        '--refresh-above <score>',
        're-record, in record mode, the cassettes of the tests whose drift is above this score (0 to 1)',
      ).argParser(number('--refresh-above', 1)),
    )
    .option('--allow-ci', 'run when CI is set (a nightly job), and let --refresh-above re-record there')
    .option('--out <dir>', "where the report goes (default: the tests' trace folder)")
    .addOption(
      new Option('--runner <runner>', "the test runner to run (default: the project's)").choices(
        RUNNER_NAMES,
      ),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  understudy live -- test/refunds.test.ts\n  understudy live --repeat 10 --min-pass-rate 0.9 --budget-tokens 200000\n' +
        '  understudy live --repeat 5 --tag nightly --refresh-above 0.3\n\n' +
        'Writes live-report.json (schemas/live-report.schema.json) and live-report.html to the trace folder.\n' +
        'Refused when CI is set, unless --allow-ci. Needs the provider key.\n' +
        'Exit codes: 0 every gate passed, 1 a test passed less often than its gate, 2 bad usage, 3 the budget stopped the run first.',
    )
    .action((runnerArgs: string[], options: LiveOptions) => runLive(runnerArgs, options));
}
