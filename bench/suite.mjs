#!/usr/bin/env node
/**
 * Suite-scale speed: what a whole test suite costs under the preset, against the same suite
 * written with hand-written stubs and against aimock, all in one run.
 *
 *   node bench/suite.mjs [output.json]      (also phase 5 of `npm run bench`)
 *
 * It packs the package and installs the tarball into a scratch consumer project
 * (scripts/install-packed.cjs), generates N test files (UNDERSTUDY_BENCH_SUITE_FILES, default
 * 80) of 3 tests each per suite, and runs each suite with Jest `-w 2`, timing the whole run
 * (wall clock, process start to exit). Every test drives the same agent: a 3-step OpenAI tool loop
 * (lookup_order -> refund_order -> reply) through the official `openai` SDK.
 *
 * Fixture suites (the model differs, the tools are a tiny in-file fake):
 *   stubs          jest-environment-node; the SDK gets a `fetch` that pops a hand-written queue
 *                  of three Chat Completion bodies
 *   aimock         jest-environment-node; one aimock server (loopback) started in globalSetup,
 *                  loaded with the fixture file; the SDK's baseURL points at it
 *   preset         preset: 'jest-understudy'; `understudy.model.use(loadFixtures('chain.fixture.yaml'))`
 *   preset-script  the same fixtures from `script()`
 *   preset-stubs   the stubs' files unchanged under the preset (no jest-understudy import)
 * World suites (the agent's tools call an `orders` module; the test replaces its functions):
 *   stubs-world    jest-environment-node, queue as above, `jest.spyOn` with a hand-written fake store
 *   aimock-world   aimock as above, the same hand-written fake store
 *   preset-world   the preset, fixtures from the YAML file, `@understudy-world orders.world.yaml`
 *                  and `jest.spyOn(...).mockImplementation(mockTool(binding, ...))`
 * Rounds interleave the suites (the order rotates), after one untimed warm-up run of each.
 * Then a long run: 500 files of the preset and of the stubs, with `--logHeapUsage` (and
 * `--expose-gc`, so Jest collects before it reads the heap): memory per file over the run.
 *
 * UNDERSTUDY_BENCH_QUICK=1 shrinks it (checks the script; figures meaningless).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { installPacked } = require('../scripts/install-packed.cjs');
const quick = process.env.UNDERSTUDY_BENCH_QUICK === '1';
const FILES = Number(process.env.UNDERSTUDY_BENCH_SUITE_FILES ?? (quick ? 8 : 80));
const LONG_FILES = quick ? 20 : 500;
const ROUNDS = quick ? 1 : 3;
const WORKERS = 2;
const TESTS_PER_FILE = 3;
const outputPath = process.argv[2];

const FIXTURE_SUITES = ['stubs', 'aimock', 'preset', 'preset-script', 'preset-stubs'];
const WORLD_SUITES = ['stubs-world', 'aimock-world', 'preset-world'];
const TARGETS = { overStubs: 1.15 };

const t0 = Date.now();
const progress = (m) =>
  process.stderr.write(`[suite ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${m}\n`);

// ---------------------------------------------------------------- the generated project

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      description: 'Look an order up by id',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'refund_order',
      description: 'Refund an order',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  },
];

const AGENT = `// The agent every suite tests: a 3-step OpenAI tool loop through the official SDK.
const TOOLS = ${JSON.stringify(TOOLS)};
const SYSTEM = 'You are a support agent. Look the order up before you refund it.';

async function runAgent(question, { client, orders }) {
  const messages = [{ role: 'system', content: SYSTEM }, { role: 'user', content: question }];
  for (let step = 0; step < 5; step++) {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments);
      const result = call.function.name === 'lookup_order' ? await orders.lookup(args.id) : await orders.refund(args.id);
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  throw new Error('the agent did not finish');
}

module.exports = { runAgent, TOOLS };
`;

// The production dependency the world suites replace (it would call a real service).
const ORDERS = `module.exports = {
  async lookup() { throw new Error('orders.lookup: the real service is not reachable from tests'); },
  async refund() { throw new Error('orders.refund: the real service is not reachable from tests'); },
};
`;

const FIXTURES = [
  {
    match: { userMessage: 'Refund order', turnIndex: 0, hasToolResult: false },
    response: { toolCalls: [{ name: 'lookup_order', arguments: { id: 'A1001' } }] },
  },
  {
    match: { userMessage: 'Refund order', turnIndex: 1, hasToolResult: true },
    response: { toolCalls: [{ name: 'refund_order', arguments: { id: 'A1001' } }] },
  },
  {
    match: { userMessage: 'Refund order', turnIndex: 2, hasToolResult: true },
    response: { content: 'Order A1001 was refunded.' },
  },
];

const FIXTURE_YAML = `# The refund chain: lookup, refund, reply.
fixtures:
${FIXTURES.map(
  (f) =>
    `  - match: { userMessage: "${f.match.userMessage}", turnIndex: ${f.match.turnIndex}, hasToolResult: ${f.match.hasToolResult} }\n` +
    (f.response.toolCalls
      ? `    response:\n      toolCalls:\n        - { name: ${f.response.toolCalls[0].name}, arguments: { id: ${f.response.toolCalls[0].arguments.id} } }\n`
      : `    response: { content: "${f.response.content}" }\n`),
).join('')}`;

const WORLD = `name: orders
packages:
  - id: orders
    kind: external
    bindings: [direct]
    state:
      orders:
        A1001: { id: A1001, status: paid, total: 30 }
    operations:
      - id: orders.get
        toolNames: [lookup_order]
        input: { type: object, properties: { id: { type: string } }, required: [id] }
        output:
          type: object
          properties: { id: { type: string }, status: { type: string }, total: { type: number } }
          required: [id, status]
        errors: [{ code: NOT_FOUND, status: 404 }]
        behavior: { builtin: get, collection: orders }
      - id: orders.refund
        toolNames: [refund_order]
        input: { type: object, properties: { id: { type: string } }, required: [id] }
        output:
          type: object
          properties: { id: { type: string }, status: { type: string } }
          required: [id, status]
        behavior: { builtin: upsert, collection: orders, merge: true, set: { status: refunded } }
`;

/** The three Chat Completion bodies a hand-written stub hands out, in order. */
function queueBodies() {
  const completion = (message, finish) => ({
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    created: 1767225600,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, ...message },
        finish_reason: finish,
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  const call = (id, name) => ({
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify({ id: 'A1001' }) } }],
  });
  return [
    completion(call('call_1', 'lookup_order'), 'tool_calls'),
    completion(call('call_2', 'refund_order'), 'tool_calls'),
    completion({ content: 'Order A1001 was refunded.' }, 'stop'),
  ];
}

const QUEUE = `// A hand-written response queue given to the SDK: each request pops the next canned body.
const BODIES = ${JSON.stringify(queueBodies())};

function queuedClient(OpenAI) {
  const queue = BODIES.map((b) => JSON.stringify(b));
  const requests = [];
  const fetch = async (url, init) => {
    requests.push(JSON.parse(init.body));
    const body = queue.shift();
    if (body === undefined) throw new Error('the stub queue is empty');
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { client: new OpenAI({ apiKey: 'sk-stub', maxRetries: 0, fetch }), requests };
}

/** The fake store a team writes by hand. */
function fakeOrders() {
  const orders = { A1001: { id: 'A1001', status: 'paid', total: 30 } };
  const calls = [];
  return {
    calls,
    orders,
    lookup: async (id) => { calls.push(['lookup', id]); return orders[id]; },
    refund: async (id) => { calls.push(['refund', id]); orders[id] = { ...orders[id], status: 'refunded' }; return { id, status: 'refunded' }; },
  };
}

module.exports = { queuedClient, fakeOrders };
`;

const AIMOCK_SETUP = `// globalSetup: one aimock server for the whole run, on loopback, loaded with the fixture file.
const { join } = require('node:path');
module.exports = async () => {
  const { LLMock } = require('@copilotkit/aimock');
  const mock = new LLMock({ port: 0, host: '127.0.0.1', logLevel: 'silent' });
  mock.loadFixtureFile(join(__dirname, 'chain.fixture.json'));
  await mock.start();
  if (!/^http:\\/\\/127\\.0\\.0\\.1:\\d+$/.test(mock.url)) throw new Error('aimock is not on loopback: ' + mock.url);
  globalThis.__aimock = mock;
  process.env.AIMOCK_URL = mock.url;
};
`;
// Jest's JSON output drops the heap figure --logHeapUsage takes; this reporter keeps it per file.
const HEAP_REPORTER = `const { appendFileSync } = require('node:fs');
module.exports = class HeapReporter {
  onTestResult(_test, result) {
    appendFileSync(process.env.UNDERSTUDY_BENCH_HEAP_OUT, JSON.stringify({ end: result.perfStats.end, heap: result.memoryUsage }) + '\\n');
  }
};
`;
const AIMOCK_TEARDOWN = 'module.exports = async () => { await globalThis.__aimock.stop(); };\n';

const header = (label) => `// ${label}: generated by bench/suite.mjs.\n`;
const commonRequires =
  "const { describe, expect, it } = require('@jest/globals');\nconst OpenAI = require('openai').default;\nconst { runAgent } = require('../../shared/agent');\n";

// The generated test file reads AIMOCK_URL when it runs, so the placeholder stays literal here.
const AIMOCK_CLIENT =
  "    const client = new OpenAI({ apiKey: 'sk-aimock', baseURL: " +
  '`$' +
  '{process.env.AIMOCK_URL}/v1`, maxRetries: 0 });\n';

function testBody(kind, n) {
  const tests = [];
  for (let t = 1; t <= TESTS_PER_FILE; t++) {
    const title = `refunds order A1001 (file ${n}, test ${t})`;
    const question = `Refund order A1001 please (${n}.${t})`;
    if (kind === 'stubs' || kind === 'aimock') {
      const client =
        kind === 'stubs' ? '    const { client, requests } = queuedClient(OpenAI);\n' : AIMOCK_CLIENT;
      tests.push(
        `  it(${JSON.stringify(title)}, async () => {\n${client}` +
          '    const orders = fakeOrders();\n' +
          `    const answer = await runAgent(${JSON.stringify(question)}, { client, orders });\n` +
          "    expect(answer).toContain('refunded');\n" +
          "    expect(orders.calls).toEqual([['lookup', 'A1001'], ['refund', 'A1001']]);\n" +
          (kind === 'stubs' ? '    expect(requests).toHaveLength(3);\n' : '') +
          '  });\n',
      );
    } else if (kind === 'stubs-world' || kind === 'aimock-world') {
      const client =
        kind === 'stubs-world' ? '    const { client } = queuedClient(OpenAI);\n' : AIMOCK_CLIENT;
      tests.push(
        `  it(${JSON.stringify(title)}, async () => {\n${client}` +
          '    const fake = fakeOrders();\n' +
          "    jest.spyOn(orders, 'lookup').mockImplementation(fake.lookup);\n" +
          "    jest.spyOn(orders, 'refund').mockImplementation(fake.refund);\n" +
          `    const answer = await runAgent(${JSON.stringify(question)}, { client, orders });\n` +
          "    expect(answer).toContain('refunded');\n" +
          "    expect(fake.orders.A1001.status).toBe('refunded');\n" +
          "    expect(fake.calls.map((c) => c[0])).toEqual(['lookup', 'refund']);\n" +
          '  });\n',
      );
    } else if (kind === 'preset' || kind === 'preset-script') {
      tests.push(
        `  it(${JSON.stringify(title)}, async () => {\n` +
          '    const client = new OpenAI();\n' +
          '    const orders = fakeOrders();\n' +
          `    const run = await understudy.run(() => runAgent(${JSON.stringify(question)}, { client, orders }));\n` +
          "    expect(run).toHaveCalledToolSequence(['lookup_order', 'refund_order']);\n" +
          "    expect(run).toHaveFinalMessage('refunded');\n" +
          "    expect(orders.calls).toEqual([['lookup', 'A1001'], ['refund', 'A1001']]);\n" +
          '  });\n',
      );
    } else if (kind === 'preset-world') {
      tests.push(
        `  it(${JSON.stringify(title)}, async () => {\n` +
          '    const client = new OpenAI();\n' +
          '    const binding = understudy.world.bind();\n' +
          "    jest.spyOn(orders, 'lookup').mockImplementation(mockTool(binding, { mode: 'async', operation: { packageId: 'orders', operationId: 'orders.get' }, input: (id) => ({ id }) }));\n" +
          "    jest.spyOn(orders, 'refund').mockImplementation(mockTool(binding, { mode: 'async', operation: { packageId: 'orders', operationId: 'orders.refund' }, input: (id) => ({ id }) }));\n" +
          `    const run = await understudy.run(() => runAgent(${JSON.stringify(question)}, { client, orders }));\n` +
          "    expect(run).toHaveCalledToolSequence(['lookup_order', 'refund_order']);\n" +
          "    expect(run).toHaveFinalMessage('refunded');\n" +
          "    expect(understudy.world.state.orders.orders.A1001.status).toBe('refunded');\n" +
          '  });\n',
      );
    }
  }
  return tests.join('\n');
}

function testFile(kind, n) {
  const describeLine = `describe('refund agent ${n}', () => {\n`;
  switch (kind) {
    case 'stubs':
    case 'aimock':
    case 'preset-stubs':
      return (
        header(kind) +
        commonRequires +
        "const { queuedClient, fakeOrders } = require('../../shared/queue');\n\n" +
        describeLine +
        testBody(kind === 'preset-stubs' ? 'stubs' : kind, n) +
        '});\n'
      );
    case 'preset':
      return (
        header(kind) +
        commonRequires +
        "const { join } = require('node:path');\nconst { understudy, loadFixtures } = require('jest-understudy');\n" +
        "const { fakeOrders } = require('../../shared/queue');\n\n" +
        "understudy.model.use(loadFixtures(join(__dirname, '../../shared/chain.fixture.yaml')));\n\n" +
        describeLine +
        testBody(kind, n) +
        '});\n'
      );
    case 'preset-script':
      return (
        header(kind) +
        commonRequires +
        "const { understudy, script } = require('jest-understudy');\nconst { fakeOrders } = require('../../shared/queue');\n\n" +
        "understudy.model.use(script().user('Refund order').callsTool('lookup_order', { id: 'A1001' }).callsTool('refund_order', { id: 'A1001' }).replies('Order A1001 was refunded.'));\n\n" +
        describeLine +
        testBody('preset', n) +
        '});\n'
      );
    case 'stubs-world':
    case 'aimock-world':
      return (
        header(kind) +
        commonRequires +
        "const orders = require('../../shared/orders');\nconst { queuedClient, fakeOrders } = require('../../shared/queue');\n\n" +
        describeLine +
        testBody(kind, n) +
        '});\n'
      );
    case 'preset-world':
      return (
        '/**\n * @understudy-world ../../shared/orders.world.yaml\n */\n' +
        header(kind) +
        commonRequires +
        "const { join } = require('node:path');\nconst orders = require('../../shared/orders');\n" +
        "const { understudy, loadFixtures, mockTool } = require('jest-understudy');\n\n" +
        "understudy.model.use(loadFixtures(join(__dirname, '../../shared/chain.fixture.yaml')));\n\n" +
        describeLine +
        testBody(kind, n) +
        '});\n'
      );
  }
  throw new Error(`unknown suite ${kind}`);
}

function configFor(kind, dir) {
  const preset = kind.startsWith('preset');
  const aimock = kind.startsWith('aimock');
  return {
    rootDir: dir,
    testMatch: ['<rootDir>/*.test.js'],
    // Plain CommonJS test files: no transform in any suite, so only the environment differs.
    transform: {},
    ...(preset ? { preset: 'jest-understudy' } : { testEnvironment: 'node' }),
    ...(preset ? { testEnvironmentOptions: { understudy: { traces: 'off' } } } : {}),
    ...(aimock
      ? {
          globalSetup: join(dir, '..', '..', 'shared', 'aimock-setup.js'),
          globalTeardown: join(dir, '..', '..', 'shared', 'aimock-teardown.js'),
        }
      : {}),
    // The preset's reporter prints a summary; every suite reports the same way (nothing printed).
    reporters: [],
    restoreMocks: true,
    cache: true,
  };
}

function generate(project, kind, files, group) {
  const dir = join(project, group, kind);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (let n = 1; n <= files; n++)
    writeFileSync(join(dir, `f${String(n).padStart(3, '0')}.test.js`), testFile(kind, n));
  const config = join(project, 'configs', `${group}-${kind}.config.json`);
  writeFileSync(config, JSON.stringify(configFor(kind, dir)));
  return config;
}

function writeShared(project) {
  const shared = join(project, 'shared');
  mkdirSync(shared, { recursive: true });
  mkdirSync(join(project, 'configs'), { recursive: true });
  writeFileSync(join(shared, 'agent.js'), AGENT);
  writeFileSync(join(shared, 'orders.js'), ORDERS);
  writeFileSync(join(shared, 'queue.js'), QUEUE);
  writeFileSync(join(shared, 'chain.fixture.yaml'), FIXTURE_YAML);
  writeFileSync(join(shared, 'chain.fixture.json'), `${JSON.stringify({ fixtures: FIXTURES }, null, 2)}\n`);
  writeFileSync(join(shared, 'orders.world.yaml'), WORLD);
  writeFileSync(join(shared, 'aimock-setup.js'), AIMOCK_SETUP);
  writeFileSync(join(shared, 'aimock-teardown.js'), AIMOCK_TEARDOWN);
  writeFileSync(join(shared, 'heap-reporter.js'), HEAP_REPORTER);
}

// ---------------------------------------------------------------- running

function runSuite(project, config, { heap = false } = {}) {
  const jest = join(project, 'node_modules', 'jest', 'bin', 'jest.js');
  const out = join(project, 'results.json');
  rmSync(out, { force: true });
  const args = [
    ...(heap ? ['--expose-gc'] : []),
    jest,
    '--config',
    config,
    '-w',
    String(WORKERS),
    '--ci',
    '--json',
    '--outputFile',
    out,
    ...(heap ? ['--logHeapUsage', '--reporters', join(project, 'shared', 'heap-reporter.js')] : []),
  ];
  const heapOut = join(project, 'heap.jsonl');
  rmSync(heapOut, { force: true });
  const env = { ...process.env, FORCE_COLOR: '0', UNDERSTUDY_BENCH_HEAP_OUT: heapOut };
  for (const key of ['NODE_OPTIONS', 'OPENAI_API_KEY', 'UNDERSTUDY_MODE', 'CI']) delete env[key];
  const start = performance.now();
  const r = spawnSync(process.execPath, args, {
    cwd: project,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const wallMs = performance.now() - start;
  let results;
  try {
    results = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    throw new Error(`the suite ${config} wrote no results (exit ${r.status}):\n${r.stderr}`);
  }
  if (r.status !== 0 || results.numFailedTests > 0 || results.numFailedTestSuites > 0) {
    const failure = results.testResults.find((t) => t.status !== 'passed');
    throw new Error(
      `the suite ${config} failed (exit ${r.status}): ${failure?.message?.slice(0, 2000) ?? r.stderr.slice(0, 2000)}`,
    );
  }
  const heapFiles = heap
    ? readFileSync(heapOut, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
    : [];
  return { wallMs, results, heapFiles };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Heap after each file, in the order files finished: growth is the last tenth against the first. */
function heapProfile(heapFiles) {
  const files = heapFiles
    .filter((t) => typeof t.heap === 'number')
    .sort((a, b) => a.end - b.end)
    .map((t) => t.heap / 2 ** 20);
  const tenth = Math.max(1, Math.floor(files.length / 10));
  const first = median(files.slice(0, tenth));
  const last = median(files.slice(-tenth));
  return {
    files: files.length,
    firstTenthMiB: first,
    lastTenthMiB: last,
    growthMiB: last - first,
    maxMiB: Math.max(...files),
  };
}

function main() {
  progress('building, packing and installing the tarball into a consumer project');
  const project = installPacked({ root, prefix: 'understudy-suite-bench-' });
  try {
    writeShared(project);
    const configs = {};
    for (const kind of FIXTURE_SUITES) configs[kind] = generate(project, kind, FILES, 'fixture');
    for (const kind of WORLD_SUITES) configs[kind] = generate(project, kind, FILES, 'world');
    const all = [...FIXTURE_SUITES, ...WORLD_SUITES];
    progress(`warm-up: every suite once (${FILES} files x ${TESTS_PER_FILE} tests), untimed`);
    for (const kind of all) runSuite(project, configs[kind]);
    const walls = Object.fromEntries(all.map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < all.length; i++) {
        const kind = all[(round + i) % all.length];
        progress(`round ${round + 1}/${ROUNDS}: ${kind}`);
        walls[kind].push(runSuite(project, configs[kind]).wallMs);
      }
    }
    progress(`long run: ${LONG_FILES} files, preset and stubs, heap per file`);
    const longPreset = generate(project, 'preset', LONG_FILES, 'long');
    const longStubs = generate(project, 'stubs', LONG_FILES, 'long');
    runSuite(project, longPreset); // warm the long run's haste map
    runSuite(project, longStubs);
    const long = {};
    for (const [kind, config] of [
      ['stubs', longStubs],
      ['preset', longPreset],
    ]) {
      const r = runSuite(project, config, { heap: true });
      long[kind] = { wallMs: r.wallMs, heap: heapProfile(r.heapFiles) };
    }
    return report({ walls, long });
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

function report({ walls, long }) {
  const m = Object.fromEntries(Object.entries(walls).map(([k, v]) => [k, median(v)]));
  const verdicts = [];
  const verdict = (ok, label) => {
    verdicts.push({ label, ok });
    return ok ? 'PASS' : 'MISS';
  };
  const lines = [];
  const say = (s = '') => lines.push(s);
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const x = (v) => `${v.toFixed(2)}x`;
  say(
    `5. Suite wall time: ${FILES} files x ${TESTS_PER_FILE} tests, Jest -w ${WORKERS}, median of ${ROUNDS} interleaved rounds` +
      (quick ? ' (QUICK MODE: figures not meaningful)' : ''),
  );
  say('   each test: a 3-step openai tool loop (lookup_order -> refund_order -> reply)');
  say();
  const rows = [
    ['stubs', 'jest-environment-node, hand-written response queue'],
    ['aimock', 'jest-environment-node, aimock in globalSetup'],
    ['preset', "preset, loadFixtures('chain.fixture.yaml')"],
    ['preset-script', 'preset, script()'],
    ['preset-stubs', 'preset, the stub files unchanged'],
    ['stubs-world', 'world: hand-written queue + fake store'],
    ['aimock-world', 'world: aimock + fake store'],
    ['preset-world', 'world: preset, world file + mockTool'],
  ];
  for (const [k, label] of rows)
    say(`   ${label.padEnd(52)}${s(m[k]).padStart(10)}   (${walls[k].map(s).join(', ')})`);
  say();
  const ratio = (a, b) => m[a] / m[b];
  const judged = [
    ['preset', 'stubs', `<= ${TARGETS.overStubs}x`, (r) => r <= TARGETS.overStubs],
    ['preset', 'aimock', '< 1x', (r) => r < 1],
    ['preset-world', 'stubs-world', `<= ${TARGETS.overStubs}x`, (r) => r <= TARGETS.overStubs],
    ['preset-world', 'aimock-world', '< 1x', (r) => r < 1],
  ];
  const ratios = {};
  for (const [a, b, target, ok] of judged) {
    const r = ratio(a, b);
    const v = verdict(ok(r), `suite ${a}/${b} ${target}`);
    ratios[`${a}/${b}`] = { ratio: r, target, verdict: v };
    say(`   ${`${a} / ${b}`.padEnd(52)}${x(r).padStart(10)}   target ${target}  ${v}`);
  }
  for (const [a, b] of [
    ['preset-script', 'stubs'],
    ['preset-stubs', 'stubs'],
  ]) {
    ratios[`${a}/${b}`] = { ratio: ratio(a, b) };
    say(`   ${`${a} / ${b}`.padEnd(52)}${x(ratio(a, b)).padStart(10)}`);
  }
  const perFile = (m.preset - m.stubs) / FILES;
  say(`   the preset costs ${perFile.toFixed(1)} ms of wall time per file over the stubs (fixture suites)`);
  say();
  say(`   ${LONG_FILES} files, heap after each file (--logHeapUsage, gc first), MiB:`);
  for (const k of ['stubs', 'preset']) {
    const h = long[k].heap;
    const flat =
      k === 'preset'
        ? verdict(
            h.growthMiB <= Math.max(5, long.stubs.heap.growthMiB + 5),
            `${LONG_FILES}-file preset heap flat (growth within 5 MiB of the stubs')`,
          )
        : '';
    say(
      `   ${k.padEnd(8)} wall ${s(long[k].wallMs)}; first tenth ${h.firstTenthMiB.toFixed(1)}, last tenth ${h.lastTenthMiB.toFixed(1)}, ` +
        `growth ${h.growthMiB >= 0 ? '+' : ''}${h.growthMiB.toFixed(1)}, max ${h.maxMiB.toFixed(1)}${k === 'preset' ? `  ${flat}` : ''}`,
    );
  }
  const results = {
    files: FILES,
    testsPerFile: TESTS_PER_FILE,
    workers: WORKERS,
    rounds: ROUNDS,
    quick,
    wallMs: walls,
    medianWallMs: m,
    ratios,
    long: { files: LONG_FILES, ...long },
    verdicts,
    lines,
  };
  process.stdout.write(`${lines.join('\n')}\n`);
  return results;
}

const results = main();
if (outputPath) writeFileSync(outputPath, JSON.stringify(results));
