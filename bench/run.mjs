#!/usr/bin/env node
/**
 * `npm run bench`: every figure and every baseline from one run, printed as a table with the
 * ratio and PASS/MISS against each quality bar, and written to bench/results.json.
 * See docs/benchmarks.md (bench/NOTES.md for the method and its history). No figure is asserted on; the exit code only says whether a phase crashed.
 *
 * Phases (each in its own process):
 *   1. calls    Jest on bench/calls.bench.ts under the environment: environment + in-process floor,
 *               Chat Completions plain and streamed, Responses / Anthropic Messages / Gemini streamed
 *      host     plain Node: floor again, bare msw 3, aimock over 127.0.0.1
 *   2. startup  environments constructed directly (bench/startup.cjs), then Jest end to end on
 *               generated test files (trivial, and one replayed model call) under both environments
 *               (bench/startup-reporter.cjs)
 *   3. matching MockModel.resolve with 10 and 10,000 fixtures (bench/matching.cjs)
 *   4. world    mockTool sync/async and a world HTTP tool call vs jest.fn (bench/world.mjs, its own Jest)
 *   6. served   Jest on bench/served.bench.ts: a child Node process (bench/served-client.mjs) calls the
 *               served port of understudy.serve() and aimock over 127.0.0.1 (bench/aimock-server.mjs),
 *               alternating call by call (OpenAI Chat, plain and streamed)
 *   7. sockets  Jest on bench/sockets.bench.ts: one model turn over each socket protocol (Responses
 *               WebSocket mode, OpenAI Realtime, Gemini Live), environment vs in-process floor vs
 *               aimock, alternating call by call (bench/sockets.mjs)
 *   5. suite    whole generated suites from the packed tarball, Jest and Vitest: the preset / the plugin
 *               vs hand-written stubs vs aimock, fixture files and a world, whole-process start-up of
 *               a trivial file on both runners, and a 500-file run for memory (bench/suite.mjs)
 *
 * UNDERSTUDY_BENCH_QUICK=1 shrinks every loop (for checking the script, not for figures).
 * UNDERSTUDY_BENCH_PHASES=startup runs the start-up phase alone (with a one-call calls run for the
 * bytes its node files return) and prints only its rows; results.json and the docs page stay as they are.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, cpus, platform, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSocketPasses, socketReport } from './sockets.mjs';
import { roundFigures, stats } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const localRequire = createRequire(import.meta.url);
const driver = localRequire('./driver.cjs');
const quick = process.env.UNDERSTUDY_BENCH_QUICK === '1';
// Per pass: `prewarm` untimed calls of every reply and target, then per reply `warmup` more and
// `calls` timed calls per target (the targets of one process alternate call by call).
const PASSES = quick ? 2 : 3;
const PLAN = quick ? { prewarm: 5, warmup: 5, calls: 10 } : { prewarm: 200, warmup: 50, calls: 100 };
const STARTUP = quick ? { warmup: 2, iterations: 6, files: 4 } : { warmup: 10, iterations: 50, files: 25 };
const MATCHING = quick ? { batches: 3, perBatch: 200 } : { batches: 15, perBatch: 2000 };
const PHASE_TIMEOUT_MS = 600_000;
// The suite phase runs some forty whole Jest suites and two of 500 files: far longer than the others.
const SUITE_PHASE_TIMEOUT_MS = 2_700_000;
const E2E_PROJECTS = [
  'startup-node',
  'startup-understudy',
  'call-node',
  'call-understudy',
  'call-node-packed',
  'call-understudy-packed',
];
// UNDERSTUDY_BENCH_PHASES=startup: only the start-up phase (for measuring one change).
const STARTUP_ONLY = process.env.UNDERSTUDY_BENCH_PHASES === 'startup';

const TARGETS = {
  envFloor: 1.1, // environment / floor ≤ 1.1x, plain and streamed, every protocol
  aimock: 2, // aimock / environment ≥ 2x (required)
  msw: 1, // msw / environment ≥ 1x (required)
  startupMs: 25, // understudy − node ≤ 25 ms per file
  matching: 1.2, // 10,000 / 10 ≤ 1.2x (flat)
  diagnosisUs: 5000, // the no-match diagnosis at 10,000 fixtures < 5 ms
  worldDirectUs: 50, // mockTool direct call < 50 µs median (judged by bench/world.mjs)
  contracts: 1.1, // contracts on / off < 1.10x per replayed call
};

const tmp = mkdtempSync(join(tmpdir(), 'understudy-bench-'));
const t0 = Date.now();

function progress(message) {
  process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${message}\n`);
}

/** Runs one phase in its own process; its output is shown only if it fails. */
function phase(name, args, env = {}, timeout = PHASE_TIMEOUT_MS) {
  progress(name);
  const r = spawnSync(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    process.stderr.write(r.stdout ?? '');
    process.stderr.write(r.stderr ?? '');
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}`;
    throw new Error(`bench phase "${name}" failed (${why})`);
  }
}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const versionOf = (pkg) => readJson(join(root, 'node_modules', pkg, 'package.json')).version;

const { installPacked } = localRequire('../scripts/install-packed.cjs');
const jest = join(root, 'node_modules/jest/bin/jest.js');
const jestConfig = join(root, 'bench/jest.bench.config.ts');
// As `npm test` runs Jest.
const jestEnv = {
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' '),
};

let failed = false;
try {
  // 1. Per replayed call, in PASSES passes; each pass runs every target once (the order rotates),
  // so a change in the machine's load during the run is spread over all targets.
  // passes[p][target][variant] = ms per call.
  const passes = [];
  const cpuPasses = []; // the same, process CPU ms per call
  const differences = {}; // known, reported differences of a host target's reply (host-calls.mjs)
  const callsOut = join(tmp, 'calls.json');
  const callsInput = join(tmp, 'calls-input.json'); // the first pass's bytes and summaries, for the host
  // Request contracts: environment with every rule on vs off, per pass (calls.bench.ts).
  const contractPasses = [];
  // Bedrock and embeddings: environment vs floor, per pass (calls.bench.ts).
  const surfacePasses = [];
  const runSandbox = (pass) => () => {
    phase(
      `calls ${pass + 1}/${PASSES}: Jest sandbox, environment + in-process floor`,
      [jest, '--config', jestConfig, '--selectProjects', 'calls', '--runInBand', '--silent'],
      {
        ...jestEnv,
        UNDERSTUDY_BENCH_OUT: callsOut,
        UNDERSTUDY_BENCH_PLAN: JSON.stringify(PLAN),
      },
    );
    const out = readJson(callsOut);
    contractPasses[pass] = out.contracts;
    surfacePasses[pass] = out.surface;
    if (pass === 0)
      writeFileSync(
        callsInput,
        JSON.stringify({ ...out, samples: undefined, contracts: undefined, surface: undefined }),
      );
    for (const [id, s] of Object.entries(out.samples)) {
      passes[pass].environment = { ...passes[pass].environment, [id]: s.environment };
      passes[pass].floor = { ...passes[pass].floor, [id]: s.floor };
      cpuPasses[pass].environment = { ...cpuPasses[pass].environment, [id]: out.cpu[id].environment };
      cpuPasses[pass].floor = { ...cpuPasses[pass].floor, [id]: out.cpu[id].floor };
    }
  };
  const runHost = (target, key, pass) => () => {
    const out = join(tmp, `host-${target}.json`);
    phase(`calls ${pass + 1}/${PASSES}: host, ${target}`, [
      join(root, 'bench/host-calls.mjs'),
      target,
      callsInput,
      out,
    ]);
    const result = readJson(out);
    passes[pass][key] = result.samples;
    cpuPasses[pass][key] = result.cpu;
    if (Object.keys(result.differences ?? {}).length > 0) differences[target] = result.differences;
  };
  // Start-up alone: one sandbox call per variant gives the bytes the start-up node files return.
  if (STARTUP_ONLY) {
    phase(
      'calls: one call per variant, for the start-up files',
      [jest, '--config', jestConfig, '--selectProjects', 'calls', '--runInBand', '--silent'],
      {
        ...jestEnv,
        UNDERSTUDY_BENCH_OUT: callsOut,
        UNDERSTUDY_BENCH_PLAN: JSON.stringify({ warmup: 1, calls: 1 }),
      },
    );
    writeFileSync(callsInput, JSON.stringify({ ...readJson(callsOut), samples: undefined }));
  }
  for (let pass = 0; pass < (STARTUP_ONLY ? 0 : PASSES); pass++) {
    passes.push({});
    cpuPasses.push({});
    const steps = [
      runSandbox(pass),
      runHost('floor', 'hostFloor', pass),
      runHost('msw', 'msw', pass),
      runHost('aimock', 'aimock', pass),
    ];
    // The sandbox goes first in the first pass: it captures the bytes the host targets serve.
    for (let k = 0; k < steps.length; k++) steps[(pass + k) % steps.length]();
  }

  // 4. The world (run now, next to the other sandbox timings; printed last).
  const worldOut = join(tmp, 'world.json');
  if (!STARTUP_ONLY)
    phase('world: mockTool sync/async and HTTP tool call vs jest.fn', [
      join(root, 'bench/world.mjs'),
      worldOut,
    ]);
  const world = STARTUP_ONLY ? undefined : readJson(worldOut);

  // 2. Start-up per test file.
  const startupOut = join(tmp, 'startup.json');
  phase('startup: environments constructed directly', [
    join(root, 'bench/startup.cjs'),
    startupOut,
    String(STARTUP.warmup),
    String(STARTUP.iterations),
  ]);
  const direct = readJson(startupOut);
  const startupDir = join(tmp, 'startup-files');
  for (const [dir, body] of Object.entries(startupFiles(readJson(callsInput)))) {
    mkdirSync(join(startupDir, dir), { recursive: true });
    for (let i = 1; i <= STARTUP.files; i++)
      writeFileSync(join(startupDir, dir, `file${String(i).padStart(2, '0')}.test.ts`), body);
  }
  // The one-call files again, as users run them: the packed tarball installed in a consumer project
  // (scripts/install-packed.cjs), plain CommonJS test files with no transform, `preset: 'jest-understudy'`.
  progress('startup: building, packing and installing the tarball for the packed one-call rows');
  const packedDir = installPacked({ root, dir: join(tmp, 'startup-packed') });
  for (const [dir, body] of Object.entries(packedStartupFiles(readJson(callsInput)))) {
    mkdirSync(join(packedDir, dir), { recursive: true });
    for (let i = 1; i <= STARTUP.files; i++)
      writeFileSync(join(packedDir, dir, `file${String(i).padStart(2, '0')}.test.js`), body);
  }
  const e2eOut = join(tmp, 'startup-e2e.json');
  phase(
    'startup: Jest end to end, trivial and one-call files under both environments, source and packed',
    [
      jest,
      '--config',
      jestConfig,
      '--selectProjects',
      ...E2E_PROJECTS,
      '--runInBand',
      '--reporters',
      join(root, 'bench/startup-reporter.cjs'),
    ],
    {
      ...jestEnv,
      UNDERSTUDY_BENCH_STARTUP_DIR: startupDir,
      UNDERSTUDY_BENCH_PACKED_DIR: packedDir,
      UNDERSTUDY_BENCH_STARTUP_OUT: e2eOut,
    },
  );
  const e2e = readJson(e2eOut);
  if (STARTUP_ONLY) {
    const lines = [];
    const say = (s = '') => lines.push(s);
    const verdicts = [];
    const verdict = (ok, label) => {
      verdicts.push({ label, ok });
      return ok ? 'PASS' : 'MISS';
    };
    startupSection(direct, e2e, { say, verdict });
    process.stdout.write(`${lines.join('\n')}\n`);
  } else {
    laterPhases({ passes, cpuPasses, contractPasses, surfacePasses, differences, direct, e2e, world });
  }
} catch (error) {
  failed = true;
  process.stderr.write(`${error.stack ?? error}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

/** Phases 3, 6, 7 and 5, then the report of every phase. */
function laterPhases({ passes, cpuPasses, contractPasses, surfacePasses, differences, direct, e2e, world }) {
  // 3. Matching.
  const matchingOut = join(tmp, 'matching.json');
  phase('matching: MockModel.resolve, 10 vs 10,000 fixtures', [
    join(root, 'bench/matching.cjs'),
    matchingOut,
    String(MATCHING.batches),
    String(MATCHING.perBatch),
  ]);
  const matching = readJson(matchingOut);

  // 6. The served port from a child process vs aimock (each pass one Jest run).
  const servedOut = join(tmp, 'served.json');
  const servedPasses = [];
  for (let pass = 0; pass < PASSES; pass++) {
    phase(
      `served ${pass + 1}/${PASSES}: child process to understudy.serve() vs aimock`,
      [jest, '--config', jestConfig, '--selectProjects', 'served', '--runInBand', '--silent'],
      { ...jestEnv, UNDERSTUDY_BENCH_OUT: servedOut, UNDERSTUDY_BENCH_PLAN: JSON.stringify(PLAN) },
    );
    servedPasses.push(readJson(servedOut));
  }

  // 7. One model turn over each socket protocol (each pass one Jest run).
  const socketPasses = runSocketPasses(phase, { passes: PASSES, plan: PLAN, tmp });

  // 5. Whole suites.
  const suiteOut = join(tmp, 'suite.json');
  phase(
    'suite: generated suites, Jest and Vitest: jest-understudy, hand-written stubs and aimock',
    [join(root, 'bench/suite.mjs'), suiteOut],
    {},
    SUITE_PHASE_TIMEOUT_MS,
  );
  const suite = readJson(suiteOut);

  report({
    passes,
    cpuPasses,
    contractPasses,
    surfacePasses,
    differences,
    direct,
    e2e,
    matching,
    world,
    suite,
    servedPasses,
    socketPasses,
  });
}

/**
 * The generated start-up test files, per directory. `trivial` makes no model or tool request.
 * `call-understudy` imports jest-understudy, registers the tool-call fixture and makes one
 * replayed `chat.completions.create`; `call-node` is the same test without jest-understudy: the
 * SDK given a fetch that returns the bytes the environment served for that call (`calls` phase).
 */
function startupFiles(callsInput) {
  const variant = driver.VARIANTS.find((v) => v.id === 'chat tools/json');
  const params = JSON.stringify(driver.paramsFor(variant));
  const fixture = JSON.stringify(driver.understudyFixtures().find((f) => f.response.toolCalls));
  const canned = callsInput.canned[variant.id];
  const check =
    "  expect(completion.choices[0].message.tool_calls?.map((c) => c.id)).toEqual(['call_bench_weather_0001', 'call_bench_time_0002']);\n";
  return {
    trivial:
      "import { expect, it } from '@jest/globals';\n\nit('starts', () => {\n  expect(1 + 1).toBe(2);\n});\n",
    'call-understudy':
      "import { expect, it } from '@jest/globals';\nimport { understudy } from 'jest-understudy';\nimport OpenAI from 'openai';\n\n" +
      "it('makes one replayed call', async () => {\n" +
      `  understudy.model.use([${fixture}]);\n` +
      `  const client = new OpenAI({ apiKey: ${JSON.stringify(driver.API_KEY)}, maxRetries: 0 });\n` +
      `  const completion = await client.chat.completions.create(${params});\n` +
      check +
      '});\n',
    'call-node':
      "import { expect, it } from '@jest/globals';\nimport OpenAI from 'openai';\n\n" +
      `const body = ${JSON.stringify(canned.body)};\n\n` +
      "it('makes one call on canned bytes', async () => {\n" +
      `  const client = new OpenAI({ apiKey: ${JSON.stringify(driver.API_KEY)}, maxRetries: 0, ` +
      `fetch: async () => new Response(body, { headers: { 'content-type': ${JSON.stringify(canned.contentType)} } }) });\n` +
      `  const completion = await client.chat.completions.create(${params});\n` +
      check +
      '});\n',
  };
}

/**
 * The start-up rows (phase 2): printed through `say`, judged through `verdict`; returns them for
 * results.json. The one-call target is judged on the packed row (what users run); the row loaded
 * from source is printed beside it, not judged.
 */
function startupSection(direct, e2e, { say, verdict }) {
  const ms = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(3));
  const signed = (v) => `${v >= 0 ? '+' : ''}${v.toFixed(1)}`;
  const cell = (s, w) => String(s).padEnd(w);
  const rcell = (s, w) => String(s).padStart(w);
  const d = {
    node: stats(direct.samples.node),
    understudy: stats(direct.samples.understudy),
    understudyRuntime: stats(direct.samples.understudyRuntime),
  };
  // Per project: per file, Jest's own perfStats.
  const perFile = Object.fromEntries(
    E2E_PROJECTS.map((p) => [p, { total: [], setupAfterEnv: [], testFile: [] }]),
  );
  let e2eFailures = 0;
  for (const f of e2e.files) {
    if (f.failed) e2eFailures++;
    const p = f.perfStats;
    const into = perFile[f.project];
    if (!into) continue;
    into.total.push(p.end - p.loadTestEnvironmentStart);
    into.setupAfterEnv.push((p.setupAfterEnvEnd ?? 0) - (p.setupAfterEnvStart ?? 0));
    // After the setup files: the test file's own imports and its test.
    into.testFile.push(p.end - (p.setupAfterEnvEnd ?? p.loadTestEnvironmentEnd));
  }
  if (e2eFailures > 0) throw new Error(`${e2eFailures} start-up test file(s) failed under Jest`);
  const e2eStats = Object.fromEntries(
    Object.entries(perFile).map(([p, v]) => [
      p,
      { total: stats(v.total), setupAfterEnv: stats(v.setupAfterEnv), testFile: stats(v.testFile) },
    ]),
  );
  // `judged: false`: printed for comparison, no verdict (the same figure is judged on another row).
  const startupRow = (node, understudy, label, extra = {}, { judged = true } = {}) => {
    const differenceMs = understudy.median - node.median;
    return {
      ...extra,
      node,
      understudy,
      differenceMs,
      verdict: judged
        ? verdict(differenceMs <= TARGETS.startupMs, `start-up, ${label}: within 25 ms`)
        : 'not judged',
    };
  };
  const oneCallRow = (nodeProject, understudyProject, label, what, judged) =>
    startupRow(
      e2eStats[nodeProject].total,
      e2eStats[understudyProject].total,
      label,
      {
        what,
        files: STARTUP.files,
        setupFilesAfterEnvMs: {
          node: e2eStats[nodeProject].setupAfterEnv.median,
          understudy: e2eStats[understudyProject].setupAfterEnv.median,
        },
        testFileMs: {
          node: e2eStats[nodeProject].testFile.median,
          understudy: e2eStats[understudyProject].testFile.median,
        },
      },
      { judged },
    );
  const startup = {
    direct: startupRow(d.node, d.understudy, 'environment constructed directly', {
      what: 'new Env(...), setup(), teardown(); no runtime (a file that never calls a model or tool); esbuild-register sources',
      warmup: direct.warmup,
    }),
    directRuntime: startupRow(d.node, d.understudyRuntime, 'constructed directly, runtime created', {
      what: 'the same, with the per-file Runtime created and attached to the bridge (as on the first model call); modules already loaded',
      warmup: direct.warmup,
    }),
    jest: startupRow(
      e2eStats['startup-node'].total,
      e2eStats['startup-understudy'].total,
      'Jest end to end, trivial file',
      {
        what: 'Jest perfStats per file, loadTestEnvironmentStart -> end (construct, setup, setupFilesAfterEnv, test)',
        files: STARTUP.files,
        setupFilesAfterEnvMs: {
          node: e2eStats['startup-node'].setupAfterEnv.median,
          understudy: e2eStats['startup-understudy'].setupAfterEnv.median,
        },
        testFileMs: {
          node: e2eStats['startup-node'].testFile.median,
          understudy: e2eStats['startup-understudy'].testFile.median,
        },
      },
    ),
    jestOneCall: oneCallRow(
      'call-node',
      'call-understudy',
      'Jest end to end, one replayed call, from source',
      'the same, for a file that imports jest-understudy and makes one replayed openai chat.completions.create, ' +
        'jest-understudy loaded from source (swc, moduleNameMapper); not judged: see the packed row; ' +
        'node: the same test under jest-environment-node, the SDK given a fetch returning the same bytes',
      false,
    ),
    jestOneCallPacked: oneCallRow(
      'call-node-packed',
      'call-understudy-packed',
      'Jest end to end, one replayed call, packed tarball',
      'the same one-call file from the packed tarball, as users run it (preset: jest-understudy, plain CommonJS ' +
        'test files, no transform; judged); node: the same file under jest-environment-node with canned bytes',
      true,
    ),
  };
  say('2. Environment start-up per test file: jest-environment-node vs jest-understudy (median ms)');
  say();
  say(
    `   ${cell('', 52)}${rcell('node', 10)}${rcell('understudy', 12)}${rcell('difference', 12)}${rcell('target', 10)}`,
  );
  const startupLine = (label, row) =>
    say(
      `   ${cell(label, 52)}${rcell(ms(row.node.median), 10)}${rcell(ms(row.understudy.median), 12)}` +
        `${rcell(signed(row.differenceMs), 12)}${rcell(row.verdict === 'not judged' ? '' : '<= 25', 10)}  ${row.verdict}`,
    );
  const partLine = (label, a, b) =>
    say(`   ${cell(label, 52)}${rcell(ms(a), 10)}${rcell(ms(b), 12)}${rcell(signed(b - a), 12)}`);
  startupLine(`constructed directly, no runtime (${direct.iterations} each)`, startup.direct);
  startupLine('constructed directly, runtime created', startup.directRuntime);
  startupLine(`Jest end to end, trivial file (${STARTUP.files} each)`, startup.jest);
  partLine(
    '  of which setupFilesAfterEnv (environment/jest/setup.ts)',
    startup.jest.setupFilesAfterEnvMs.node,
    startup.jest.setupFilesAfterEnvMs.understudy,
  );
  for (const [label, row] of [
    [`Jest end to end, one replayed call, source (${STARTUP.files})`, startup.jestOneCall],
    [`Jest end to end, one replayed call, PACKED (${STARTUP.files})`, startup.jestOneCallPacked],
  ]) {
    startupLine(label, row);
    partLine(
      '  of which setupFilesAfterEnv (setup file)',
      row.setupFilesAfterEnvMs.node,
      row.setupFilesAfterEnvMs.understudy,
    );
    partLine('  of which the test file (imports + test)', row.testFileMs.node, row.testFileMs.understudy);
  }
  say(
    '   (one replayed call: node = the same test under jest-environment-node, SDK fetch returning the same bytes;',
  );
  say(
    '    source = jest-understudy from source through swc, not judged; PACKED = the installed tarball, judged)',
  );
  say();

  return startup;
}

/**
 * The one-call files for the packed rows: the same tests as `call-understudy` and `call-node`, as
 * plain CommonJS (the packed projects run them with no transform, as bench/suite.mjs does).
 */
function packedStartupFiles(callsInput) {
  const files = startupFiles(callsInput);
  const cjs = (body) =>
    body
      .replace(
        "import { expect, it } from '@jest/globals';",
        "const { expect, it } = require('@jest/globals');",
      )
      .replace(
        "import { understudy } from 'jest-understudy';",
        "const { understudy } = require('jest-understudy');",
      )
      .replace("import OpenAI from 'openai';", "const OpenAI = require('openai').default;");
  return {
    'call-understudy-packed': cjs(files['call-understudy']),
    'call-node-packed': cjs(files['call-node']),
  };
}

function report({
  passes,
  cpuPasses,
  contractPasses,
  surfacePasses,
  differences,
  direct,
  e2e,
  matching,
  world,
  suite,
  servedPasses,
  socketPasses,
}) {
  const verdicts = [];
  const verdict = (ok, label) => {
    verdicts.push({ label, ok });
    return ok ? 'PASS' : 'MISS';
  };
  const lines = [];
  const say = (s = '') => lines.push(s);
  const ms = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(3));
  const x = (v) => `${v.toFixed(2)}x`;
  const cell = (s, w) => String(s).padEnd(w);
  const rcell = (s, w) => String(s).padStart(w);

  const cpu = cpus();
  const machine = {
    node: process.version,
    platform: `${platform()} ${arch()}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
  const versions = {
    openai: versionOf('openai'),
    '@anthropic-ai/sdk': versionOf('@anthropic-ai/sdk'),
    '@google/genai': versionOf('@google/genai'),
    msw: versionOf('msw'),
    '@copilotkit/aimock': versionOf('@copilotkit/aimock'),
    jest: versionOf('jest'),
  };
  say(
    `jest-understudy bench · Node ${machine.node} · ${machine.platform} · ${machine.cpus} CPUs (${machine.cpuModel})` +
      (quick ? ' · QUICK MODE: figures not meaningful' : ''),
  );
  say(
    `openai ${versions.openai} · @anthropic-ai/sdk ${versions['@anthropic-ai/sdk']} · @google/genai ${versions['@google/genai']} · msw ${versions.msw} · @copilotkit/aimock ${versions['@copilotkit/aimock']} · jest ${versions.jest}`,
  );
  say();

  // 1. Per call.
  const perCall = {};
  const ratios = {};
  say(
    '1. Replayed call, ms per call (median / p95); the official SDKs, no retries, same canned reply for every target',
  );
  say('   chat = openai chat.completions.create({ ..., tools }); responses = openai responses.create;');
  say(
    '   anthropic = @anthropic-ai/sdk messages.create({ max_tokens, ... }); gemini = @google/genai generateContentStream',
  );
  say('   sse = streamed, every event consumed with for await from the raw stream; json = not streamed');
  say(
    `   ${PASSES * PLAN.calls} timed calls per target and reply: ${PASSES} passes, each ${PLAN.prewarm} warm-up calls of ` +
      `every reply, then per reply ${PLAN.warmup} more and ${PLAN.calls} timed`,
  );
  say();
  const cols = [
    ['floor', 'floor (sandbox)'],
    ['environment', 'environment'],
    ['msw', 'bare msw (host)'],
    ['aimock', 'aimock (127.0.0.1)'],
    ['hostFloor', 'floor (host)'],
  ];
  const W = 22; // first column: protocol reply/mode
  say(`   ${cell('protocol reply/mode', W)}${cols.map(([, h]) => rcell(h, 20)).join('')}`);
  const pooled = (key, id) => passes.flatMap((p) => p[key][id]);
  const median = (samples) => stats(samples).median;
  for (const id of Object.keys(passes[0].environment)) {
    const row = {};
    for (const [k] of cols) row[k] = stats(pooled(k, id));
    perCall[id] = row;
    say(
      `   ${cell(id, W)}${cols.map(([k]) => rcell(`${ms(row[k].median)} / ${ms(row[k].p95)}`, 20)).join('')}`,
    );
  }
  say();
  say(
    `   ${cell('protocol reply/mode', W)}${rcell('environment/floor', 26)}${rcell('aimock/environment', 26)}${rcell('msw/environment', 26)}`,
  );
  say(
    `   ${cell('', W)}${rcell(`target <= ${TARGETS.envFloor}x`, 26)}${rcell('required >= 2x', 26)}${rcell('required >= 1x', 26)}`,
  );
  const ratioDefs = {
    environmentOverFloor: ['environment', 'floor'],
    aimockOverEnvironment: ['aimock', 'environment'],
    mswOverEnvironment: ['msw', 'environment'],
  };
  for (const [id, row] of Object.entries(perCall)) {
    const r = {};
    const perPass = {};
    for (const [name, [a, b]] of Object.entries(ratioDefs)) {
      r[name] = row[a].median / row[b].median;
      perPass[name] = passes.map((p) => median(p[a][id]) / median(p[b][id]));
    }
    const v = {
      environmentOverFloor: verdict(
        r.environmentOverFloor <= TARGETS.envFloor,
        `${id} environment/floor <= ${TARGETS.envFloor}x`,
      ),
      aimockOverEnvironment: verdict(
        r.aimockOverEnvironment >= TARGETS.aimock,
        `${id} aimock/environment >= 2x`,
      ),
      mswOverEnvironment: verdict(r.mswOverEnvironment >= TARGETS.msw, `${id} msw/environment >= 1x`),
    };
    ratios[id] = { ...r, perPass, verdicts: v };
    say(
      `   ${cell(id, W)}` +
        rcell(`${x(r.environmentOverFloor)} ${v.environmentOverFloor}`, 26) +
        rcell(`${x(r.aimockOverEnvironment)} ${v.aimockOverEnvironment}`, 26) +
        rcell(`${x(r.mswOverEnvironment)} ${v.mswOverEnvironment}`, 26),
    );
    const spread = (name) => {
      const values = perPass[name];
      return `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;
    };
    say(
      `   ${cell('  per pass', W)}${rcell(spread('environmentOverFloor'), 21)}${rcell(spread('aimockOverEnvironment'), 26)}` +
        `${rcell(spread('mswOverEnvironment'), 26)}`,
    );
  }
  say(`   (ratios of pooled medians, and the range of the ${PASSES} per-pass ratios)`);
  // Process CPU time per call: what each target costs the machine, less exposed than wall time to
  // other processes competing for the cores while one target's process ran. Shown, not judged.
  const cpuPerCall = {};
  say();
  say('   process CPU ms per call (user + system, all threads), median; no verdict:');
  say(`   ${cell('protocol reply/mode', W)}${cols.map(([, h]) => rcell(h, 20)).join('')}`);
  for (const id of Object.keys(cpuPasses[0].environment)) {
    const row = {};
    for (const [k] of cols) row[k] = stats(cpuPasses.flatMap((p) => p[k][id])).median;
    cpuPerCall[id] = {
      ...row,
      environmentOverFloor: row.environment / row.floor,
      aimockOverEnvironment: row.aimock / row.environment,
      mswOverEnvironment: row.msw / row.environment,
    };
    say(`   ${cell(id, W)}${cols.map(([k]) => rcell(ms(row[k]), 20)).join('')}`);
  }
  say(
    `   ${cell('', W)}${rcell('environment/floor', 26)}${rcell('aimock/environment', 26)}${rcell('msw/environment', 26)}`,
  );
  for (const [id, r] of Object.entries(cpuPerCall)) {
    say(
      `   ${cell(id, W)}${rcell(x(r.environmentOverFloor), 26)}${rcell(x(r.aimockOverEnvironment), 26)}` +
        rcell(x(r.mswOverEnvironment), 26),
    );
  }
  say(`   (floor (sandbox) vs floor (host) is what running the SDK inside the Jest sandbox costs by itself)`);
  for (const [target, byVariant] of Object.entries(differences)) {
    for (const [id, d] of Object.entries(byVariant))
      say(
        `   note: ${target} ${id} differs from the environment in ${d.field} only (${d[target]} vs ${d.environment}); compared without it`,
      );
  }
  say();

  // Request contracts: what checking them adds to a replayed call.
  say('   request contracts: the same environment call with every rule on vs contracts(false), median ms');
  say(
    `   ${cell('protocol reply/mode', W)}${rcell('off', 14)}${rcell('on', 14)}${rcell('on/off (cpu)', 18)}${rcell('target < 1.10x', 20)}`,
  );
  const contractCost = {};
  for (const id of Object.keys(contractPasses[0].samples)) {
    const wall = (k) => stats(contractPasses.flatMap((p) => p.samples[id][k])).median;
    const cpuOf = (k) => stats(contractPasses.flatMap((p) => p.cpu[id][k])).median;
    const ratio = wall('on') / wall('off');
    const cpuRatio = cpuOf('on') / cpuOf('off');
    const v = verdict(ratio < TARGETS.contracts, `${id} contracts on/off < 1.10x`);
    contractCost[id] = { offMs: wall('off'), onMs: wall('on'), ratio, cpuRatio, verdict: v };
    say(
      `   ${cell(id, W)}${rcell(ms(wall('off')), 14)}${rcell(ms(wall('on')), 14)}` +
        `${rcell(`${x(ratio)} (${x(cpuRatio)})`, 18)}${rcell(v, 20)}`,
    );
  }
  say();

  // More of the surface: Bedrock (AWS SDK, node:http through msw) and an embedding; no aimock/msw targets.
  say(
    `   more of the surface: environment vs in-process floor only, median ms (target <= ${TARGETS.envFloor}x; no aimock / bare msw target)`,
  );
  say(
    '   bedrock = @aws-sdk/client-bedrock-runtime ConverseStreamCommand, every event read; embedding = openai embeddings.create (base64)',
  );
  say(
    `   ${cell('protocol reply/mode', W)}${rcell('floor', 14)}${rcell('environment', 14)}${rcell('env/floor (cpu)', 20)}${rcell('target', 10)}`,
  );
  const surfaceCost = {};
  for (const id of Object.keys(surfacePasses[0]?.samples ?? {})) {
    const wall = (k) => stats(surfacePasses.flatMap((p) => p.samples[id][k])).median;
    const cpuOf = (k) => stats(surfacePasses.flatMap((p) => p.cpu[id][k])).median;
    const ratio = wall('environment') / wall('floor');
    const cpuRatio = cpuOf('environment') / cpuOf('floor');
    const v = verdict(ratio <= TARGETS.envFloor, `${id} environment/floor <= ${TARGETS.envFloor}x`);
    surfaceCost[id] = {
      floorMs: wall('floor'),
      environmentMs: wall('environment'),
      ratio,
      cpuRatio,
      verdict: v,
    };
    say(
      `   ${cell(id, W)}${rcell(ms(wall('floor')), 14)}${rcell(ms(wall('environment')), 14)}` +
        rcell(`${x(ratio)} (${x(cpuRatio)})`, 20) +
        rcell(v, 10),
    );
  }
  say();

  // 2. Start-up.
  const startup = startupSection(direct, e2e, { say, verdict });

  // 3. Matching.
  const m = {};
  const label = {
    last: 'last-registered fixture (index hit)',
    unindexed: 'unindexed request (unkeyed fixture answers)',
    unmatched: 'nothing matches (diagnosis, at 10,000 < 5 ms)',
  };
  say('3. Matching: MockModel.resolve(conversation), µs per resolve (median of batches)');
  say();
  say(
    `   ${cell('', 46)}${rcell('10 fixtures', 13)}${rcell('10,000', 13)}${rcell('ratio', 9)}${rcell('target', 9)}`,
  );
  for (const kind of ['last', 'unindexed', 'unmatched']) {
    const small = stats(matching.samples[10][kind]);
    const big = stats(matching.samples[10000][kind]);
    const ratio = big.median / small.median;
    const targeted = kind !== 'unmatched';
    const v = targeted
      ? verdict(ratio <= TARGETS.matching, `matching ${kind}: 10,000 vs 10 <= ${TARGETS.matching}x`)
      : verdict(big.median < TARGETS.diagnosisUs, `matching ${kind}: diagnosis at 10,000 < 5 ms`);
    m[kind] = { fixtures10: small, fixtures10000: big, ratio, verdict: v };
    say(
      `   ${cell(label[kind], 46)}${rcell(small.median.toFixed(2), 13)}${rcell(big.median.toFixed(2), 13)}` +
        `${rcell(x(ratio), 9)}${rcell(targeted ? `<= ${TARGETS.matching}x` : '< 5 ms', 9)}  ${v}`,
    );
  }
  const build = matching.firstResolveMs;
  const perTest = {
    10: stats(matching.firstCallPerTestMs[10]),
    10000: stats(matching.firstCallPerTestMs[10000]),
  };
  const afterUse = {
    10: stats(matching.firstCallAfterUseMs[10]),
    10000: stats(matching.firstCallAfterUseMs[10000]),
  };
  m.indexBuildMs = { fixtures10: build[10], fixtures10000: build[10000] };
  m.firstResolveOfLaterTestMs = { fixtures10: perTest[10], fixtures10000: perTest[10000] };
  m.firstResolveAfterTestUseMs = { fixtures10: afterUse[10], fixtures10000: afterUse[10000] };
  const msRow = (label, a, b) => say(`   ${cell(label, 46)}${rcell(ms(a), 13)}${rcell(ms(b), 13)}`);
  say('   ms, no target:');
  msRow('  index build (first resolve in the file)', build[10], build[10000]);
  msRow('  first resolve of each later test', perTest[10].median, perTest[10000].median);
  msRow('  same, the test registered 1 fixture (use)', afterUse[10].median, afterUse[10000].median);
  say();

  // 4. World tool calls (bench/world.mjs judges the direct call against its own target).
  say(
    `4. World tool calls vs a plain jest.fn in the same sandbox, µs per call (median over ${world.plan.batches} batches)`,
  );
  say();
  say(
    `   ${cell('call', 40)}${rcell('median', 9)}${rcell('p95', 9)}${rcell('baseline', 10)}  ${cell('(baseline is)', 38)}` +
      `${rcell('overhead', 10)}${rcell('ratio', 8)}${rcell('target', 9)}`,
  );
  const worldRows = world.results.map((r) => {
    const v =
      r.targetUs === undefined
        ? 'info'
        : verdict(
            r.pass === true && r.medianUs < TARGETS.worldDirectUs,
            `world ${r.id}: median < ${r.targetUs} µs`,
          );
    say(
      `   ${cell(r.target, 40)}${rcell(r.medianUs.toFixed(2), 9)}${rcell(r.p95Us.toFixed(2), 9)}` +
        `${rcell(r.baselineMedianUs.toFixed(2), 10)}  ${cell(r.baseline, 38)}${rcell(`${r.overheadUs >= 0 ? '+' : ''}${r.overheadUs.toFixed(2)}`, 10)}` +
        `${rcell(`${r.ratio}x`, 8)}${rcell(r.targetUs === undefined ? '-' : `< ${r.targetUs}`, 9)}  ${v}`,
    );
    return { ...r, verdict: v };
  });
  say();

  // 6. The served port from a child process: the same SDK calls against aimock over loopback.
  say(
    '6. A child Node process (openai SDK) to the served port vs to aimock, both over 127.0.0.1, ms per call',
  );
  say('   (median of all passes; aimock / served ≥ 1x required: at least as fast)');
  say();
  say(
    `   ${cell('variant', 22)}${rcell('served', 10)}${rcell('aimock', 10)}${rcell('ratio', 9)}${rcell('cpu served', 12)}${rcell('cpu aimock', 12)}`,
  );
  const served = {};
  for (const id of Object.keys(servedPasses[0].samples)) {
    const all = (key, target) => servedPasses.flatMap((p) => p[key][id][target]);
    const row = {
      served: stats(all('samples', 'served')),
      aimock: stats(all('samples', 'aimock')),
      cpuServed: stats(all('cpu', 'served')).median,
      cpuAimock: stats(all('cpu', 'aimock')).median,
    };
    row.aimockOverServed = Number((row.aimock.median / row.served.median).toFixed(3));
    row.verdict = verdict(row.aimockOverServed >= 1, `served ${id}: aimock / served ≥ 1x`);
    served[id] = row;
    say(
      `   ${cell(id, 22)}${rcell(ms(row.served.median), 10)}${rcell(ms(row.aimock.median), 10)}${rcell(x(row.aimockOverServed), 9)}` +
        `${rcell(ms(row.cpuServed), 12)}${rcell(ms(row.cpuAimock), 12)}  ${row.verdict}`,
    );
  }
  say();
  // 6b. Diagnostic, no target: the two servers side by side in the Jest process, a raw client.
  const sameProcess = {};
  if (servedPasses.every((p) => p.sameProcess)) {
    say("   The servers' own cost: aimock in the Jest process beside the served port, a raw HTTP/1.1 client");
    say('   (median ms per call of the rounds of 100; a diagnostic, no target)');
    say(`   ${cell('variant', 22)}${rcell('served', 10)}${rcell('aimock', 10)}${rcell('ratio', 9)}`);
    for (const id of Object.keys(servedPasses[0].sameProcess)) {
      const all = (target) => servedPasses.flatMap((p) => p.sameProcess[id][target]);
      const row = { served: stats(all('served')), aimock: stats(all('aimock')) };
      row.aimockOverServed = Number((row.aimock.median / row.served.median).toFixed(3));
      sameProcess[id] = row;
      say(
        `   ${cell(id, 22)}${rcell(ms(row.served.median), 10)}${rcell(ms(row.aimock.median), 10)}${rcell(x(row.aimockOverServed), 9)}`,
      );
    }
    say();
  }

  // 7. Socket turns (same run: no separate date on the page).
  const sockets = { ...socketReport(socketPasses, { say, verdict }), generatedAt: undefined };

  // 5. Suites (bench/suite.mjs judged its own ratios).
  for (const line of suite.lines) say(line);
  verdicts.push(...suite.verdicts);
  say();

  const missed = verdicts.filter((v) => !v.ok);
  say(
    `Targets: ${verdicts.length - missed.length} PASS, ${missed.length} MISS${missed.length ? `: ${missed.map((v) => v.label).join('; ')}` : ''}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);

  const results = {
    generatedAt: new Date().toISOString(),
    quick,
    machine,
    versions,
    calls: {
      api:
        'openai chat.completions.create (json and sse), openai responses.create, @anthropic-ai/sdk messages.create, ' +
        '@google/genai models.generateContentStream; sse: every event consumed with for await from the raw stream',
      knownDifferences: differences,
      passes: PASSES,
      plan: PLAN,
      unit: 'ms per call',
      targetEnvFloor: TARGETS.envFloor,
      targets: perCall,
      ratios,
      cpuMsPerCall: cpuPerCall,
      contracts: contractCost,
      surface: surfaceCost,
    },
    startup,
    matching: { unit: 'µs per resolve', plan: MATCHING, ...m },
    world: { unit: 'µs per call', plan: world.plan, results: worldRows },
    suite: { ...suite, lines: undefined },
    served: { unit: 'ms per call', plan: PLAN, passes: PASSES, variants: served, sameProcess },
    sockets,
    verdicts,
  };
  const resultsPath = join(root, 'bench/results.json');
  // Figures rounded to 4 significant digits; formatted as the repository's Biome config wants it.
  writeFileSync(resultsPath, `${JSON.stringify(results, roundFigures, 2)}\n`);
  spawnSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', resultsPath], {
    cwd: root,
    stdio: 'ignore',
  });
  progress('wrote bench/results.json');
  // A quick run's figures mean nothing: the page keeps the last whole run's.
  if (!quick) {
    localRequire('./figures.cjs').writeFigures();
    progress('wrote the figures of docs/benchmarks.md');
  }
}
