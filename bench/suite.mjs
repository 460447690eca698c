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
const WORKERS = 2;
const TESTS_PER_FILE = 3;
const outputPath = process.argv[2];

const FIXTURE_SUITES = ['stubs', 'aimock', 'preset', 'preset-script', 'preset-stubs'];
const WORLD_SUITES = ['stubs-world', 'aimock-world', 'preset-world'];
// `-shared`: the same suite under `isolate: false`, whose workers run many files in one module graph.
const VITEST_SUITES = [
  'vitest-stubs',
  'vitest-aimock',
  'vitest-plugin',
  'vitest-stubs-shared',
  'vitest-aimock-shared',
  'vitest-plugin-shared',
];
// UNDERSTUDY_BENCH_SUITES=stubs,preset,... runs only those suites (for measuring one change).
const ONLY = process.env.UNDERSTUDY_BENCH_SUITES?.split(',').filter(Boolean);
const picked = (kinds) => kinds.filter((k) => !ONLY || ONLY.includes(k));
const ROUNDS_GIVEN = Number(process.env.UNDERSTUDY_BENCH_SUITE_ROUNDS ?? Number.NaN);
const ROUNDS = Number.isNaN(ROUNDS_GIVEN) ? (quick ? 1 : 5) : ROUNDS_GIVEN;
// Skipped with UNDERSTUDY_BENCH_SUITE_LONG=0 / UNDERSTUDY_BENCH_STARTUP=0 (for measuring one change).
const LONG = process.env.UNDERSTUDY_BENCH_SUITE_LONG !== '0' && !ONLY;
const STARTUP = process.env.UNDERSTUDY_BENCH_STARTUP !== '0';
// The issue's targets: understudy / stubs <= 1.15x (wall and CPU), aimock / understudy >= 1.1x.
const TARGETS = { overStubs: 1.15, aimockOver: 1.1, startupWorkerMs: 40, startupFileMs: 3 };
// Start-up: a trivial file in band, whole process; STARTUP_FILES files against 1 gives the per-file cost.
const STARTUP_FILES = 20;
const STARTUP_ROUNDS = quick ? 1 : 7;

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

// Vitest runs a project's own files as ES modules: the same agent and queue, exported so.
const toEsm = (cjs) => cjs.replace(/module\.exports = \{ (.*) \};\n$/, 'export { $1 };\n');

// Vitest's globalSetup: the same aimock server, its URL handed to the test files by provide/inject.
const AIMOCK_VITEST_SETUP = `import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
let mock;
export async function setup(project) {
  mock = new LLMock({ port: 0, host: '127.0.0.1', logLevel: 'silent' });
  mock.loadFixtureFile(fileURLToPath(new URL('./chain.fixture.json', import.meta.url)));
  await mock.start();
  if (!/^http:\\/\\/127\\.0\\.0\\.1:\\d+$/.test(mock.url)) throw new Error('aimock is not on loopback: ' + mock.url);
  project.provide('aimockUrl', mock.url);
}
export async function teardown() { await mock.stop(); }
`;

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

/** A Vitest suite's test file: the same tests as the Jest suite of the same name. */
function vitestTestFile(kind, n) {
  const base = kind.replace(/-shared$/, '');
  const jestKind = { 'vitest-stubs': 'stubs', 'vitest-aimock': 'aimock', 'vitest-plugin': 'preset' }[base];
  const body = testBody(jestKind, n).replaceAll('process.env.AIMOCK_URL', "inject('aimockUrl')");
  const imports =
    `import { describe, expect, it${base === 'vitest-aimock' ? ', inject' : ''} } from 'vitest';\n` +
    "import OpenAI from 'openai';\nimport { runAgent } from '../../shared/agent.mjs';\n" +
    `import { ${base === 'vitest-plugin' ? 'fakeOrders' : 'queuedClient, fakeOrders'} } from '../../shared/queue.mjs';\n`;
  const plugin =
    base === 'vitest-plugin'
      ? "import { fileURLToPath } from 'node:url';\nimport { understudy, loadFixtures } from 'jest-understudy';\n\n" +
        "understudy.model.use(loadFixtures(fileURLToPath(new URL('../../shared/chain.fixture.yaml', import.meta.url))));\n"
      : '';
  return `${header(kind) + imports + plugin}\ndescribe('refund agent ${n}', () => {\n${body}});\n`;
}

/** A Vitest suite's config: the plugin for `vitest-plugin`, Vitest's own node environment otherwise. */
function vitestConfigFor(kind, { workers = WORKERS } = {}) {
  const plugin = kind.includes('plugin');
  const test = {
    include: ['*.test.mjs'],
    maxWorkers: workers,
    restoreMocks: true,
    ...(kind.endsWith('-shared') ? { isolate: false } : {}),
    ...(kind.includes('aimock') ? { globalSetup: ['../../shared/aimock-vitest-setup.mjs'] } : {}),
  };
  return [
    "import { defineConfig } from 'vitest/config';",
    ...(plugin ? ["import understudy from 'jest-understudy/vitest';"] : []),
    `export default defineConfig({ ${plugin ? "plugins: [understudy({ traces: 'off' })], " : ''}test: ${JSON.stringify(test)} });`,
    '',
  ].join('\n');
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
  if (kind.startsWith('vitest')) {
    for (let n = 1; n <= files; n++)
      writeFileSync(join(dir, `f${String(n).padStart(3, '0')}.test.mjs`), vitestTestFile(kind, n));
    const config = join(dir, 'vitest.config.mjs');
    writeFileSync(config, vitestConfigFor(kind));
    return config;
  }
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
  writeFileSync(join(shared, 'agent.mjs'), toEsm(AGENT));
  writeFileSync(join(shared, 'queue.mjs'), toEsm(QUEUE));
  writeFileSync(join(shared, 'aimock-vitest-setup.mjs'), AIMOCK_VITEST_SETUP);
}

// ---------------------------------------------------------------- running

/** The command line of one suite run: Jest's, or Vitest's for a `vitest.config.mjs`. */
function commandOf(project, config, out, { heap = false, inBand = false } = {}) {
  if (config.endsWith('vitest.config.mjs'))
    return [
      join(project, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      config,
      '--root',
      dirname(config),
      ...(inBand ? ['--no-file-parallelism'] : []),
      '--reporter=json',
      `--outputFile=${out}`,
    ];
  return [
    ...(heap ? ['--expose-gc'] : []),
    join(project, 'node_modules', 'jest', 'bin', 'jest.js'),
    '--config',
    config,
    ...(inBand ? ['-i'] : ['-w', String(WORKERS)]),
    '--ci',
    '--json',
    '--outputFile',
    out,
    ...(heap ? ['--logHeapUsage', '--reporters', join(project, 'shared', 'heap-reporter.js')] : []),
  ];
}

function runSuite(project, config, { heap = false, inBand = false, tests } = {}) {
  const out = join(project, 'results.json');
  rmSync(out, { force: true });
  const args = commandOf(project, config, out, { heap, inBand });
  const heapOut = join(project, 'heap.jsonl');
  rmSync(heapOut, { force: true });
  const env = { ...process.env, FORCE_COLOR: '0', UNDERSTUDY_BENCH_HEAP_OUT: heapOut };
  for (const key of ['NODE_OPTIONS', 'OPENAI_API_KEY', 'UNDERSTUDY_MODE', 'CI']) delete env[key];
  const start = performance.now();
  const cpuBefore = childCpuMs();
  const r = spawnSync(process.execPath, args, {
    cwd: project,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const wallMs = performance.now() - start;
  const cpuMs = childCpuMs() - cpuBefore;
  let results;
  try {
    results = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    throw new Error(`the suite ${config} wrote no results (exit ${r.status}):\n${r.stderr}`);
  }
  const ran = results.numPassedTests === tests && results.numTotalTests === tests;
  if (r.status !== 0 || results.numFailedTests > 0 || results.numFailedTestSuites > 0 || !ran) {
    const failure = results.testResults.find((t) => t.status !== 'passed');
    throw new Error(
      `the suite ${config} failed (exit ${r.status}, ${results.numPassedTests} of ${tests} tests passed): ` +
        `${failure?.message?.slice(0, 2000) || r.stderr.slice(0, 2000)}`,
    );
  }
  const heapFiles = heap
    ? readFileSync(heapOut, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
    : [];
  return { wallMs, cpuMs, results, heapFiles };
}

/** CPU time (user + system, ms) of this process's waited-for children: Jest and its workers. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
function childCpuMs() {
  try {
    // Fields after the command name: state is field 3; cutime and cstime are fields 16 and 17.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * `a` over `b`, each round's ratio and their median: the two ran in the same round, so a slow
 * stretch of the machine (a round's runs all slower by 10-20%) cancels in the round's ratio, where a
 * ratio of the two medians would take `a`'s from one round and `b`'s from another.
 */
const roundRatios = (samples, a, b) => samples[a].map((v, i) => v / samples[b][i]);
const pairedRatio = (samples, a, b) => median(roundRatios(samples, a, b));

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

const TRIVIAL_JEST =
  "const { expect, it } = require('@jest/globals');\n\nit('starts', () => {\n  expect(1 + 1).toBe(2);\n});\n";
const TRIVIAL_VITEST =
  "import { expect, it } from 'vitest';\n\nit('starts', () => {\n  expect(1 + 1).toBe(2);\n});\n";
const STARTUP_KINDS = [
  'jest-node',
  'jest-understudy',
  'vitest-node',
  'vitest-understudy',
  'vitest-shared-node',
  'vitest-shared-understudy',
];

/** Start-up projects: a trivial file (1 and STARTUP_FILES of them) per runner, plain and with jest-understudy, default options. */
function generateStartup(project) {
  const configs = {};
  for (const kind of STARTUP_KINDS)
    for (const count of [1, STARTUP_FILES]) {
      const dir = join(project, 'startup', `${kind}-${count}`);
      mkdirSync(dir, { recursive: true });
      const vitest = kind.startsWith('vitest');
      for (let n = 1; n <= count; n++)
        writeFileSync(
          join(dir, `t${String(n).padStart(2, '0')}.test.${vitest ? 'mjs' : 'js'}`),
          vitest ? TRIVIAL_VITEST : TRIVIAL_JEST,
        );
      let config;
      if (vitest) {
        config = join(dir, 'vitest.config.mjs');
        const plugin = kind.endsWith('understudy');
        writeFileSync(
          config,
          [
            "import { defineConfig } from 'vitest/config';",
            ...(plugin ? ["import understudy from 'jest-understudy/vitest';"] : []),
            `export default defineConfig({ ${plugin ? 'plugins: [understudy()], ' : ''}test: { include: ['*.test.mjs']${kind.includes('-shared') ? ', isolate: false' : ''} } });`,
            '',
          ].join('\n'),
        );
      } else {
        config = join(project, 'configs', `startup-${kind}-${count}.config.json`);
        writeFileSync(
          config,
          JSON.stringify({
            rootDir: dir,
            testMatch: ['<rootDir>/*.test.js'],
            transform: {},
            ...(kind.endsWith('understudy') ? { preset: 'jest-understudy' } : { testEnvironment: 'node' }),
            cache: true,
          }),
        );
      }
      configs[`${kind}-${count}`] = { config, tests: count };
    }
  return configs;
}

function main() {
  progress('building, packing and installing the tarball into a consumer project');
  const project = installPacked({ root, prefix: 'understudy-suite-bench-' });
  try {
    writeShared(project);
    const configs = {};
    const tests = FILES * TESTS_PER_FILE;
    for (const kind of picked(FIXTURE_SUITES)) configs[kind] = generate(project, kind, FILES, 'fixture');
    for (const kind of picked(WORLD_SUITES)) configs[kind] = generate(project, kind, FILES, 'world');
    for (const kind of picked(VITEST_SUITES)) configs[kind] = generate(project, kind, FILES, 'vitest');
    // Jest and Vitest suites interleaved: a change in the machine's load lands on both runners.
    const all = interleave(picked([...FIXTURE_SUITES, ...WORLD_SUITES]), picked(VITEST_SUITES));
    progress(`warm-up: every suite once (${FILES} files x ${TESTS_PER_FILE} tests), untimed`);
    for (const kind of all) runSuite(project, configs[kind], { tests });
    const walls = Object.fromEntries(all.map((k) => [k, []]));
    const cpus = Object.fromEntries(all.map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < all.length; i++) {
        const kind = all[(round + i) % all.length];
        progress(`round ${round + 1}/${ROUNDS}: ${kind}`);
        const r = runSuite(project, configs[kind], { tests });
        walls[kind].push(r.wallMs);
        cpus[kind].push(r.cpuMs);
      }
    }
    let startup;
    if (STARTUP) {
      const startupConfigs = generateStartup(project);
      const keys = Object.keys(startupConfigs);
      progress(`start-up: a trivial file in band, 1 and ${STARTUP_FILES} files, ${STARTUP_ROUNDS} rounds`);
      for (const key of keys)
        runSuite(project, startupConfigs[key].config, { inBand: true, tests: startupConfigs[key].tests });
      startup = {
        wallMs: Object.fromEntries(keys.map((k) => [k, []])),
        cpuMs: Object.fromEntries(keys.map((k) => [k, []])),
      };
      for (let round = 0; round < STARTUP_ROUNDS; round++)
        for (let i = 0; i < keys.length; i++) {
          const key = keys[(round + i) % keys.length];
          const r = runSuite(project, startupConfigs[key].config, {
            inBand: true,
            tests: startupConfigs[key].tests,
          });
          startup.wallMs[key].push(r.wallMs);
          startup.cpuMs[key].push(r.cpuMs);
        }
    }
    let long;
    if (LONG) {
      progress(`long run: ${LONG_FILES} files, preset and stubs, heap per file`);
      const longPreset = generate(project, 'preset', LONG_FILES, 'long');
      const longStubs = generate(project, 'stubs', LONG_FILES, 'long');
      const longTests = LONG_FILES * TESTS_PER_FILE;
      runSuite(project, longPreset, { tests: longTests }); // warm the long run's haste map
      runSuite(project, longStubs, { tests: longTests });
      long = {};
      for (const [kind, config] of [
        ['stubs', longStubs],
        ['preset', longPreset],
      ]) {
        const r = runSuite(project, config, { heap: true, tests: longTests });
        long[kind] = { wallMs: r.wallMs, heap: heapProfile(r.heapFiles) };
      }
    }
    return report({ walls, cpus, long, startup });
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

/** a0, b0, a1, b1, …: the two lists alternated, the longer one's rest at the end. */
function interleave(a, b) {
  const out = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]);
    if (i < b.length) out.push(b[i]);
  }
  return out;
}

function report({ walls, cpus, long, startup }) {
  const m = Object.fromEntries(Object.entries(walls).map(([k, v]) => [k, median(v)]));
  const c = Object.fromEntries(Object.entries(cpus).map(([k, v]) => [k, median(v)]));
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
    `5. Whole suites: ${FILES} files x ${TESTS_PER_FILE} tests, ${WORKERS} workers (Jest -w, Vitest maxWorkers), ${ROUNDS} interleaved rounds; ratios: the median of each round's ratio` +
      (quick ? ' (QUICK MODE: figures not meaningful)' : ''),
  );
  say(
    '   each test: a 3-step openai tool loop (lookup_order -> refund_order -> reply); CPU = the runner and its workers',
  );
  say();
  const rows = [
    ['stubs', 'Jest: jest-environment-node, hand-written response queue'],
    ['aimock', 'Jest: jest-environment-node, aimock in globalSetup'],
    ['preset', "Jest: preset, loadFixtures('chain.fixture.yaml')"],
    ['preset-script', 'Jest: preset, script()'],
    ['preset-stubs', 'Jest: preset, the stub files unchanged'],
    ['stubs-world', 'Jest world: hand-written queue + fake store'],
    ['aimock-world', 'Jest world: aimock + fake store'],
    ['preset-world', 'Jest world: preset, world file + mockTool'],
    ['vitest-stubs', 'Vitest: node, hand-written response queue'],
    ['vitest-aimock', 'Vitest: node, aimock in globalSetup'],
    ['vitest-plugin', "Vitest: plugin, loadFixtures('chain.fixture.yaml')"],
    ['vitest-stubs-shared', 'Vitest, isolate: false: node, response queue'],
    ['vitest-aimock-shared', 'Vitest, isolate: false: node, aimock'],
    ['vitest-plugin-shared', 'Vitest, isolate: false: plugin, loadFixtures'],
  ].filter(([k]) => k in m);
  say(`   ${''.padEnd(58)}${'wall'.padStart(10)}${'CPU'.padStart(10)}   (wall per round)`);
  for (const [k, label] of rows)
    say(
      `   ${label.padEnd(58)}${s(m[k]).padStart(10)}${s(c[k]).padStart(10)}   (${walls[k].map(s).join(', ')})`,
    );
  say();
  // [numerator, denominator, target]: `over` = numerator / denominator <= 1.15x (understudy over
  // stubs), `ahead` = numerator / denominator >= 1.1x (aimock over understudy); wall and CPU both judged.
  const judged = [
    ['preset', 'stubs', 'over'],
    ['aimock', 'preset', 'ahead'],
    ['preset-world', 'stubs-world', 'over'],
    ['aimock-world', 'preset-world', 'ahead'],
    ['vitest-plugin', 'vitest-stubs', 'over'],
    ['vitest-aimock', 'vitest-plugin', 'ahead'],
    ['vitest-plugin-shared', 'vitest-stubs-shared', 'over'],
    ['vitest-aimock-shared', 'vitest-plugin-shared', 'ahead'],
  ];
  const ratios = {};
  say(`   ${''.padEnd(58)}${'wall'.padStart(10)}${'CPU'.padStart(10)}   target`);
  for (const [a, b, kind] of judged) {
    if (!(a in m && b in m)) continue;
    const wall = pairedRatio(walls, a, b);
    const cpu = pairedRatio(cpus, a, b);
    const target = kind === 'over' ? `<= ${TARGETS.overStubs}x` : `>= ${TARGETS.aimockOver}x`;
    const ok = (r) => (kind === 'over' ? r <= TARGETS.overStubs : r >= TARGETS.aimockOver);
    const v = verdict(ok(wall) && ok(cpu), `suite ${a}/${b} ${target} (wall and CPU)`);
    ratios[`${a}/${b}`] = {
      ratio: wall,
      cpuRatio: cpu,
      roundRatios: roundRatios(walls, a, b),
      cpuRoundRatios: roundRatios(cpus, a, b),
      target,
      verdict: v,
    };
    say(`   ${`${a} / ${b}`.padEnd(58)}${x(wall).padStart(10)}${x(cpu).padStart(10)}   ${target}  ${v}`);
  }
  for (const [a, b] of [
    ['preset-script', 'stubs'],
    ['preset-stubs', 'stubs'],
  ]) {
    if (!(a in m && b in m)) continue;
    const wall = pairedRatio(walls, a, b);
    const cpu = pairedRatio(cpus, a, b);
    ratios[`${a}/${b}`] = { ratio: wall, cpuRatio: cpu };
    say(`   ${`${a} / ${b}`.padEnd(58)}${x(wall).padStart(10)}${x(cpu).padStart(10)}`);
  }
  for (const [a, b, runner] of [
    ['preset', 'stubs', 'Jest preset'],
    ['vitest-plugin', 'vitest-stubs', 'Vitest plugin'],
    ['vitest-plugin-shared', 'vitest-stubs-shared', 'Vitest plugin (isolate: false)'],
  ])
    if (a in m && b in m)
      say(
        `   the ${runner} costs ${((m[a] - m[b]) / FILES).toFixed(1)} ms of wall time and ${((c[a] - c[b]) / FILES).toFixed(1)} ms of CPU per file over the stubs`,
      );
  say();
  let startupFigures;
  if (startup) {
    const sc = Object.fromEntries(Object.entries(startup.cpuMs).map(([k, v]) => [k, median(v)]));
    const sw = Object.fromEntries(Object.entries(startup.wallMs).map(([k, v]) => [k, median(v)]));
    // Each round's own differences (its four runs of a runner ran back to back), then their median.
    const rounds = startup.cpuMs[Object.keys(startup.cpuMs)[0]].map((_, i) => i);
    const inRound = (runner, i) => {
      const at = (key) => startup.cpuMs[`${runner}-${key}`][i];
      const one = at('understudy-1') - at('node-1');
      const many = at(`understudy-${STARTUP_FILES}`) - at(`node-${STARTUP_FILES}`);
      const perFile = (many - one) / (STARTUP_FILES - 1);
      return { one, many, perFile, perWorker: one - perFile };
    };
    const ms = (v) => `${v >= 0 ? '+' : ''}${v.toFixed(0)} ms`;
    say(
      `   start-up: a trivial file in band (Jest -i, Vitest --no-file-parallelism), whole process CPU, ${STARTUP_ROUNDS} interleaved rounds (the runs, their medians; the differences, the median of each round's)`,
    );
    say(
      `   ${''.padEnd(24)}${'node, 1'.padStart(10)}${'us, 1'.padStart(10)}${`node, ${STARTUP_FILES}`.padStart(10)}${`us, ${STARTUP_FILES}`.padStart(10)}` +
        `${'per worker'.padStart(12)}${'per file'.padStart(10)}   targets <= ${TARGETS.startupWorkerMs} ms once, <= ${TARGETS.startupFileMs} ms per further file`,
    );
    startupFigures = {};
    /** A runner's four start-up runs: its plain environment and jest-understudy, 1 and STARTUP_FILES files. */
    const runsOf = (runner) =>
      ['node', 'understudy'].flatMap((kind) => [1, STARTUP_FILES].map((n) => `${runner}-${kind}-${n}`));
    for (const runner of ['jest', 'vitest', 'vitest-shared']) {
      const each = rounds.map((i) => inRound(runner, i));
      const one = median(each.map((r) => r.one));
      const many = median(each.map((r) => r.many));
      const perFile = median(each.map((r) => r.perFile));
      const perWorker = median(each.map((r) => r.perWorker));
      const name = { jest: 'Jest', vitest: 'Vitest', 'vitest-shared': 'Vitest, isolate: false' }[runner];
      const vw = verdict(
        perWorker <= TARGETS.startupWorkerMs,
        `start-up ${name}: +${TARGETS.startupWorkerMs} ms CPU once per worker`,
      );
      const vf = verdict(
        perFile <= TARGETS.startupFileMs,
        `start-up ${name}: +${TARGETS.startupFileMs} ms CPU per further file`,
      );
      startupFigures[runner] = {
        cpuMs: Object.fromEntries(runsOf(runner).map((k) => [k, sc[k]])),
        wallMs: Object.fromEntries(runsOf(runner).map((k) => [k, sw[k]])),
        oneFileMs: one,
        filesMs: many,
        perWorkerMs: perWorker,
        perFileMs: perFile,
        roundPerWorkerMs: each.map((r) => r.perWorker),
        roundPerFileMs: each.map((r) => r.perFile),
        verdicts: { perWorker: vw, perFile: vf },
      };
      say(
        `   ${name.padEnd(24)}${s(sc[`${runner}-node-1`]).padStart(10)}${s(sc[`${runner}-understudy-1`]).padStart(10)}` +
          `${s(sc[`${runner}-node-${STARTUP_FILES}`]).padStart(10)}${s(sc[`${runner}-understudy-${STARTUP_FILES}`]).padStart(10)}` +
          `${ms(perWorker).padStart(12)}${ms(perFile).padStart(10)}   ${vw} / ${vf}`,
      );
    }
    say();
  }
  if (long) {
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
  }
  const results = {
    files: FILES,
    testsPerFile: TESTS_PER_FILE,
    workers: WORKERS,
    rounds: ROUNDS,
    quick,
    wallMs: walls,
    medianWallMs: m,
    cpuMs: cpus,
    medianCpuMs: c,
    ratios,
    startup: startupFigures && { files: STARTUP_FILES, rounds: STARTUP_ROUNDS, ...startupFigures },
    long: long && { files: LONG_FILES, ...long },
    verdicts,
    lines,
  };
  process.stdout.write(`${lines.join('\n')}\n`);
  return results;
}

// bench/compare.mjs reuses the generated suites and the runner; run directly, this is the phase.
export { generate, generateStartup, median, runSuite, TESTS_PER_FILE, writeShared };

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = main();
  if (outputPath) writeFileSync(outputPath, JSON.stringify(results));
}
