#!/usr/bin/env node
/**
 * Phase 7 of `npm run bench`: one model turn over each socket protocol (bench/sockets.bench.ts, in
 * its own Jest process per pass), the environment against the in-process floor and aimock's
 * WebSocket mocks. bench/run.mjs runs it with the other phases; on its own:
 *
 *   node bench/sockets.mjs            # prints the table
 *   node bench/sockets.mjs --write    # also puts it in bench/results.json (`sockets`, and its
 *                                     # verdicts) and re-renders docs/benchmarks.md's figures
 *
 * UNDERSTUDY_BENCH_QUICK=1 shrinks the loops (for checking the script; --write then refuses).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { roundFigures, stats } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_ENV_FLOOR = 1.1; // environment / floor, as for a streamed HTTP call
const COLUMNS = ['floor', 'environment', 'aimock'];

/**
 * Runs the Jest project `sockets` once per pass (`phase(name, args, env)` runs one process and
 * throws if it fails) and returns each pass's raw output.
 */
export function runSocketPasses(phase, { passes, plan, tmp }) {
  const jest = join(root, 'node_modules/jest/bin/jest.js');
  const out = join(tmp, 'sockets.json');
  const results = [];
  for (let pass = 0; pass < passes; pass++) {
    phase(
      `sockets ${pass + 1}/${passes}: one turn per socket protocol, environment vs floor vs aimock`,
      [
        jest,
        '--config',
        join(root, 'bench/jest.bench.config.ts'),
        '--selectProjects',
        'sockets',
        '--runInBand',
        '--silent',
      ],
      {
        NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' '),
        UNDERSTUDY_BENCH_OUT: out,
        UNDERSTUDY_BENCH_PLAN: JSON.stringify(plan),
      },
    );
    results.push(JSON.parse(readFileSync(out, 'utf8')));
  }
  return results;
}

/**
 * The phase's table (`say` a line at a time, `verdict(ok, label)` notes a PASS/MISS and returns
 * it) and its entry for bench/results.json.
 */
export function socketReport(passes, { say, verdict }) {
  const ms = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(3));
  const x = (v) => `${v.toFixed(2)}x`;
  const cell = (s, w) => String(s).padEnd(w);
  const rcell = (s, w) => String(s).padStart(w);
  const { plan } = passes[0];
  const W = 26;
  say('7. One model turn over a socket, ms per turn (median / p95); the same client against every target');
  say('   responses-ws = openai ResponsesWS, response.create (two parallel function calls);');
  say('   realtime = a raw `ws` client sending the Realtime API events, text session; live = @google/genai');
  say('   ai.live.connect, TEXT. A round trip is the function call, its output sent back, and the answer.');
  say(
    '   environment = answered in process inside the Jest sandbox; floor = a `ws` server on 127.0.0.1 in the',
  );
  say(
    '   same process sending back the frames the environment served; aimock = its WebSocket mocks, same process.',
  );
  say(
    `   Each call opens a session (timed apart), times the turn, closes it. ${passes.length * plan.calls} timed turns per ` +
      `target and row: ${passes.length} passes, each ${plan.prewarm} warm-up turns of every row, then per row ${plan.warmup} more and ${plan.calls} timed`,
  );
  say();
  say(`   ${cell('row', W)}${COLUMNS.map((c) => rcell(c, 18)).join('')}${rcell('frames/bytes', 15)}`);
  const rows = {};
  const median = (samples) => stats(samples).median;
  for (const id of Object.keys(passes[0].samples)) {
    const pooled = (key, target) => passes.flatMap((p) => p.samples[id][target][key]);
    const row = { frames: passes[0].frames[id] };
    for (const c of COLUMNS) row[c] = stats(pooled('wall', c));
    row.cpuMs = Object.fromEntries(COLUMNS.map((c) => [c, median(pooled('cpu', c))]));
    row.openMs = Object.fromEntries(COLUMNS.map((c) => [c, median(pooled('open', c))]));
    row.environmentOverFloor = row.environment.median / row.floor.median;
    row.aimockOverEnvironment = row.aimock.median / row.environment.median;
    row.cpuEnvironmentOverFloor = row.cpuMs.environment / row.cpuMs.floor;
    row.cpuAimockOverEnvironment = row.cpuMs.aimock / row.cpuMs.environment;
    const perPass = passes.map(
      (p) => median(p.samples[id].environment.wall) / median(p.samples[id].floor.wall),
    );
    row.environmentOverFloorPerPass = [Math.min(...perPass), Math.max(...perPass)];
    row.verdict = verdict(
      row.environmentOverFloor <= TARGET_ENV_FLOOR,
      `sockets ${id} environment/floor <= ${TARGET_ENV_FLOOR}x`,
    );
    rows[id] = row;
    say(
      `   ${cell(id, W)}${COLUMNS.map((c) => rcell(`${ms(row[c].median)} / ${ms(row[c].p95)}`, 18)).join('')}` +
        rcell(`${row.frames.frames}/${row.frames.bytes}`, 15),
    );
  }
  say();
  say(
    `   ${cell('row', W)}${rcell('environment/floor', 24)}${rcell('aimock/environment', 22)}${rcell('cpu env/floor', 16)}${rcell('cpu aimock/env', 16)}`,
  );
  say(`   ${cell('', W)}${rcell(`target <= ${TARGET_ENV_FLOOR}x`, 24)}${rcell('no target', 22)}`);
  for (const [id, r] of Object.entries(rows)) {
    say(
      `   ${cell(id, W)}${rcell(`${x(r.environmentOverFloor)} ${r.verdict}`, 24)}${rcell(x(r.aimockOverEnvironment), 22)}` +
        `${rcell(x(r.cpuEnvironmentOverFloor), 16)}${rcell(x(r.cpuAimockOverEnvironment), 16)}`,
    );
    const [lo, hi] = r.environmentOverFloorPerPass;
    say(`   ${cell('  per pass', W)}${rcell(`${lo.toFixed(2)}-${hi.toFixed(2)}`, 19)}`);
  }
  say(
    `   (ratios of pooled medians, the range of the ${passes.length} per-pass ratios; cpu = this process's, medians)`,
  );
  say();
  say('   opening a session (connect, session set-up), ms median, no target:');
  say(`   ${cell('row', W)}${COLUMNS.map((c) => rcell(c, 14)).join('')}`);
  for (const [id, r] of Object.entries(rows))
    say(`   ${cell(id, W)}${COLUMNS.map((c) => rcell(ms(r.openMs[c]), 14)).join('')}`);
  const known = passes[0].known;
  for (const [id, list] of Object.entries(known))
    for (const d of list)
      say(
        `   note: aimock ${id} differs from the environment in ${d.path} (${JSON.stringify(d.got)} vs ${JSON.stringify(d.expected)}): ${d.why}; compared without it`,
      );
  say();
  return {
    generatedAt: new Date().toISOString(),
    // The 1-minute load average when the phase ended: the machine is shared.
    loadAverage: Number(loadavg()[0].toFixed(1)),
    unit: 'ms per turn',
    what:
      'one model turn per socket protocol, the same client against the environment (in process, Jest sandbox), ' +
      'the floor (a ws server in the same process replaying the frames the environment served) and aimock (same process)',
    passes: passes.length,
    plan,
    targetEnvFloor: TARGET_ENV_FLOOR,
    rows,
    knownDifferences: known,
  };
}

/** bench/results.json with this phase's entry and verdicts in place of the last ones. */
function mergeInto(resultsPath, sockets, verdicts) {
  const results = JSON.parse(readFileSync(resultsPath, 'utf8'));
  results.sockets = sockets;
  results.verdicts = [...results.verdicts.filter((v) => !v.label.startsWith('sockets ')), ...verdicts];
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.env.UNDERSTUDY_BENCH_QUICK === '1';
  const write = process.argv.includes('--write');
  if (write && quick)
    throw new Error('bench/sockets.mjs: --write keeps whole runs only; unset UNDERSTUDY_BENCH_QUICK');
  const tmp = mkdtempSync(join(tmpdir(), 'understudy-bench-sockets-'));
  const phase = (name, args, env) => {
    process.stderr.write(`[bench sockets] ${name}\n`);
    const r = spawnSync(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.status !== 0) {
      process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
      throw new Error(
        `bench phase "${name}" failed (${r.error ? r.error.message : `exit ${r.status ?? r.signal}`})`,
      );
    }
  };
  try {
    const plan = quick ? { prewarm: 5, warmup: 5, calls: 10 } : { prewarm: 200, warmup: 50, calls: 100 };
    const passes = runSocketPasses(phase, { passes: quick ? 2 : 3, plan, tmp });
    const lines = [];
    const verdicts = [];
    const sockets = socketReport(passes, {
      say: (s = '') => lines.push(s),
      verdict: (ok, label) => {
        verdicts.push({ label, ok });
        return ok ? 'PASS' : 'MISS';
      },
    });
    process.stdout.write(`${lines.join('\n')}\n`);
    if (write) {
      const resultsPath = join(root, 'bench/results.json');
      writeFileSync(
        resultsPath,
        `${JSON.stringify(mergeInto(resultsPath, sockets, verdicts), roundFigures, 2)}\n`,
      );
      spawnSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', resultsPath], {
        cwd: root,
        stdio: 'ignore',
      });
      createRequire(import.meta.url)('./figures.cjs').writeFigures();
      process.stderr.write(
        '[bench sockets] wrote bench/results.json (sockets) and the figures of docs/benchmarks.md\n',
      );
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
