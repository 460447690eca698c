#!/usr/bin/env node
/**
 * The world's share of `npm run bench`: the cost of one tool call through the world against
 * a plain jest.fn returning the same value, in the same Jest sandbox and the same run.
 *
 *   direct   mockTool (sync): input validation, override selection (three rules on the
 *            operation), built-in behavior, output validation, evidence   vs  jest.fn
 *   async    the same through mockTool (async)                             vs  async jest.fn
 *   http     fetch + json against the world's HTTP route                   vs  async jest.fn
 *   mcp      the SDK Client's callTool on the world's MCP server, in-process and over Streamable
 *            HTTP (SSE and JSON answers)   vs  the same call through mockTool (async), and vs the
 *            floor: the same Client on the SDK's own McpServer + InMemoryTransport, same value
 *
 * Runs bench/world.bench.ts in a child Jest under jest-understudy's environment, prints a
 * table (median and p95 in µs per call, ratio to the baseline, PASS/MISS against the target
 * of a direct call under 50 µs median) and writes the figures to bench/world-results.json
 * (or the path given as the first argument). No figure is asserted on; the exit code only
 * says whether the run crashed. UNDERSTUDY_BENCH_QUICK=1 shrinks the loops.
 *
 * From bench/run.mjs: `phase('world', [join(root, 'bench/world.mjs'), outPath])`, then read
 * `readJson(outPath).results` for the table and results.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import jestOptions from '../scripts/jest-options.cjs';

const { environment, fromSource } = jestOptions;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.env.UNDERSTUDY_BENCH_QUICK === '1';
const plan = quick
  ? { batches: 4, calls: 50, httpCalls: 5, warmup: 50 }
  : { batches: 40, calls: 200, httpCalls: 25, warmup: 500 };
const TARGET_DIRECT_US = 50;
const out = process.argv[2] ? resolve(process.argv[2]) : join(root, 'bench', 'world-results.json');

const tmp = mkdtempSync(join(tmpdir(), 'understudy-world-bench-'));
const samplesFile = join(tmp, 'samples.json');
const config = {
  rootDir: root,
  testMatch: ['<rootDir>/bench/world.bench.ts'],
  transform: fromSource.transform,
  moduleNameMapper: fromSource.moduleNameMapper,
  ...environment,
};
const configPath = join(tmp, 'jest.config.json');
writeFileSync(configPath, JSON.stringify(config));

const child = spawnSync(
  process.execPath,
  [join(root, 'node_modules/jest/bin/jest.js'), '--config', configPath, '--runInBand', '--silent', '--ci'],
  {
    cwd: root,
    encoding: 'utf8',
    timeout: 180_000,
    env: {
      ...process.env,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' '),
      UNDERSTUDY_BENCH_OUT: samplesFile,
      UNDERSTUDY_BENCH_PLAN: JSON.stringify(plan),
    },
  },
);
if (child.status !== 0) {
  process.stderr.write(child.stdout ?? '');
  process.stderr.write(child.stderr ?? '');
  rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
}
const { samples } = JSON.parse(readFileSync(samplesFile, 'utf8'));
rmSync(tmp, { recursive: true, force: true });

function stats(list) {
  const s = [...list].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return {
    n: s.length,
    median: s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2,
    p95: at(0.95),
    min: s[0],
  };
}

const pairs = [
  { id: 'direct', target: 'direct (mockTool sync)', baseline: 'jest.fn (sync)', limit: TARGET_DIRECT_US },
  { id: 'async', target: 'direct (mockTool async)', baseline: 'jest.fn (async)' },
  { id: 'http', target: 'http (fetch + json)', baseline: 'jest.fn (async)' },
  { id: 'mcp-floor', target: 'mcp floor (SDK McpServer, in-memory)', baseline: 'direct (mockTool async)' },
  {
    id: 'mcp-in-process',
    target: 'mcp in-process (SDK Client)',
    baseline: 'mcp floor (SDK McpServer, in-memory)',
  },
  {
    id: 'mcp-in-process-vs-mocktool',
    target: 'mcp in-process (SDK Client)',
    baseline: 'direct (mockTool async)',
  },
  {
    id: 'mcp-http-sse',
    target: 'mcp Streamable HTTP, SSE (SDK Client)',
    baseline: 'mcp floor (SDK McpServer, in-memory)',
  },
  {
    id: 'mcp-http-sse-vs-mocktool',
    target: 'mcp Streamable HTTP, SSE (SDK Client)',
    baseline: 'direct (mockTool async)',
  },
  {
    id: 'mcp-http-json',
    target: 'mcp Streamable HTTP, JSON (SDK Client)',
    baseline: 'mcp floor (SDK McpServer, in-memory)',
  },
  {
    id: 'mcp-http-json-vs-mocktool',
    target: 'mcp Streamable HTTP, JSON (SDK Client)',
    baseline: 'direct (mockTool async)',
  },
];
const results = pairs.map(({ id, target, baseline, limit }) => {
  const t = stats(samples[target]);
  const b = stats(samples[baseline]);
  return {
    id,
    target,
    baseline,
    medianUs: +t.median.toFixed(2),
    p95Us: +t.p95.toFixed(2),
    baselineMedianUs: +b.median.toFixed(2),
    overheadUs: +(t.median - b.median).toFixed(2),
    ratio: +(t.median / b.median).toFixed(1),
    ...(limit !== undefined && { targetUs: limit, pass: t.median < limit }),
  };
});

const pad = (s, n) => String(s).padEnd(n);
console.log(`\nWorld tool calls (${plan.batches} batches; µs per call, median over batches)\n`);
console.log(
  `${pad('call', 40)}${pad('median', 10)}${pad('p95', 10)}${pad('baseline', 50)}${pad('ratio', 9)}target`,
);
for (const r of results) {
  const verdict = r.targetUs === undefined ? '' : `${r.pass ? 'PASS' : 'MISS'} (< ${r.targetUs} µs)`;
  console.log(
    `${pad(r.target, 40)}${pad(r.medianUs, 10)}${pad(r.p95Us, 10)}${pad(`${r.baselineMedianUs} (${r.baseline})`, 50)}${pad(`${r.ratio}x`, 9)}${verdict}`,
  );
}
writeFileSync(
  out,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: {
        platform: platform(),
        arch: arch(),
        cpus: cpus().length,
        cpu: cpus()[0]?.model,
        node: process.version,
      },
      quick,
      plan,
      results,
    },
    null,
    2,
  )}\n`,
);
console.log(`\nwrote ${out}`);
