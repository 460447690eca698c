#!/usr/bin/env node
/**
 * Before and after in one run: the suite phase's jest-understudy suites (bench/suite.mjs) run from
 * two installed copies of the package, interleaved round by round, each against the hand-written
 * stubs of its own project, so a change is measured against its baseline under the same load.
 *
 *   node bench/compare.mjs <baseline project> [output.json]
 *
 * <baseline project> is a consumer project with the baseline package installed (made with
 * scripts/install-packed.cjs from the baseline's checkout); the current tree is built, packed and
 * installed into a new one. Timed per version: the Jest preset and the Vitest plugin suites (80
 * files x 3 tests, 2 workers) over their stubs, and the trivial file's start-up on both runners.
 * UNDERSTUDY_BENCH_QUICK=1 shrinks it.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, generateStartup, median, runSuite, TESTS_PER_FILE, writeShared } from './suite.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { installPacked } = createRequire(import.meta.url)('../scripts/install-packed.cjs');
const quick = process.env.UNDERSTUDY_BENCH_QUICK === '1';
const FILES = quick ? 8 : 80;
const ROUNDS = Number(process.env.UNDERSTUDY_BENCH_SUITE_ROUNDS ?? (quick ? 1 : 2));
const STARTUP_ROUNDS = quick ? 1 : 3;
const [baseline, outputPath] = process.argv.slice(2);
if (!baseline) throw new Error('usage: node bench/compare.mjs <baseline project> [output.json]');
const SUITES = ['stubs', 'preset', 'vitest-stubs', 'vitest-plugin'];
const t0 = Date.now();
const progress = (m) =>
  process.stderr.write(`[compare ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${m}\n`);

function prepare(project) {
  writeShared(project);
  const suites = Object.fromEntries(
    SUITES.map((kind) => [
      kind,
      generate(project, kind, FILES, kind.startsWith('vitest') ? 'vitest' : 'fixture'),
    ]),
  );
  return { project, suites, startup: generateStartup(project) };
}

progress('building, packing and installing the current tree');
const current = installPacked({ root, prefix: 'understudy-compare-' });
try {
  const versions = { before: prepare(resolve(baseline)), after: prepare(current) };
  const tests = FILES * TESTS_PER_FILE;
  const jobs = [];
  for (const [version, v] of Object.entries(versions)) {
    for (const kind of SUITES)
      jobs.push({ key: `${version} ${kind}`, run: () => runSuite(v.project, v.suites[kind], { tests }) });
  }
  const startupJobs = [];
  for (const [version, v] of Object.entries(versions))
    for (const [key, s] of Object.entries(v.startup))
      startupJobs.push({
        key: `${version} ${key}`,
        run: () => runSuite(v.project, s.config, { inBand: true, tests: s.tests }),
      });
  const samples = {};
  const time = (list, rounds, label) => {
    for (const job of list) job.run(); // warm-up: caches, haste maps
    for (let round = 0; round < rounds; round++)
      for (let i = 0; i < list.length; i++) {
        const job = list[(round + i) % list.length];
        progress(`${label} round ${round + 1}/${rounds}: ${job.key}`);
        const r = job.run();
        samples[job.key] ??= { wallMs: [], cpuMs: [] };
        samples[job.key].wallMs.push(r.wallMs);
        samples[job.key].cpuMs.push(r.cpuMs);
      }
  };
  time(jobs, ROUNDS, 'suite');
  time(startupJobs, STARTUP_ROUNDS, 'start-up');
  const m = (key, what) => median(samples[key][what]);
  const lines = [
    `Before / after, one run (${FILES} files x ${TESTS_PER_FILE} tests, medians of ${ROUNDS} rounds; start-up ${STARTUP_ROUNDS} rounds)${quick ? ' QUICK' : ''}`,
  ];
  const figures = {};
  for (const version of ['before', 'after']) {
    const ratio = (a, b, what) => m(`${version} ${a}`, what) / m(`${version} ${b}`, what);
    const startup = (runner) => {
      const d = (n) =>
        m(`${version} ${runner}-understudy-${n}`, 'cpuMs') - m(`${version} ${runner}-node-${n}`, 'cpuMs');
      const perFile = (d(20) - d(1)) / 19;
      return { perWorkerMs: d(1) - perFile, perFileMs: perFile };
    };
    figures[version] = {
      jest: {
        wall: ratio('preset', 'stubs', 'wallMs'),
        cpu: ratio('preset', 'stubs', 'cpuMs'),
        ...startup('jest'),
      },
      vitest: {
        wall: ratio('vitest-plugin', 'vitest-stubs', 'wallMs'),
        cpu: ratio('vitest-plugin', 'vitest-stubs', 'cpuMs'),
        ...startup('vitest'),
      },
    };
    for (const runner of ['jest', 'vitest']) {
      const f = figures[version][runner];
      lines.push(
        `  ${version.padEnd(7)}${runner.padEnd(8)} suite/stubs wall ${f.wall.toFixed(2)}x CPU ${f.cpu.toFixed(2)}x; ` +
          `start-up +${f.perWorkerMs.toFixed(0)} ms once, +${f.perFileMs.toFixed(1)} ms per further file`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (outputPath)
    writeFileSync(
      outputPath,
      JSON.stringify({ files: FILES, rounds: ROUNDS, samples, figures, lines }, null, 2),
    );
} finally {
  rmSync(current, { recursive: true, force: true });
}
