'use strict';
/**
 * Matching cost with 10 vs 10,000 fixtures: `MockModel.resolve(conversation, what)` over N fixtures
 * with distinct literal userMessages (keyed as a recorded suite is: userMessage + turnIndex +
 * hasToolResult) plus a few fixtures the substring index cannot key (toolName, a pattern, model +
 * systemMessage). Conversations come from the OpenAI Chat codec (`decodeChat`). The TypeScript
 * sources are loaded with esbuild-register.
 *
 *   node bench/matching.cjs <output.json> [batches] [perBatch]
 */
const { writeFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');

require('esbuild-register/dist/node').register({ target: `node${process.versions.node.split('.')[0]}` });

const { MockModel } = require('../src/model/mock-model.ts');
const { decodeChat } = require('../src/providers/openai-chat/decode.ts');

const [outputPath, batchesArg, perBatchArg] = process.argv.slice(2);
const BATCHES = Number(batchesArg ?? 15);
const PER_BATCH = Number(perBatchArg ?? 2000);
const WARMUP_ROUNDS = BATCHES < 10 ? 1 : 8;
const SIZES = [10, 10_000];
const WHAT = 'this openai.chat request (POST https://api.openai.com/v1/chat/completions)';

const pad = (i) => String(i).padStart(5, '0');
const literal = (i) => `Summarise support ticket T-${pad(i)} for the on-call engineer`;

function fixturesFor(n) {
  const fixtures = [];
  for (let i = 0; i < n; i++) {
    fixtures.push({
      match: { userMessage: literal(i), turnIndex: 0, hasToolResult: false },
      response: { content: `Ticket T-${pad(i)}: the customer cannot log in since the last release.` },
    });
  }
  // Fixtures the index cannot key: every request still tests them.
  fixtures.push(
    {
      match: { toolName: 'lookup_order' },
      response: { toolCalls: [{ name: 'lookup_order', arguments: { orderId: '5512' } }] },
    },
    { match: { userMessage: /^refund order \d+$/ }, response: { content: 'Refund started.' } },
    {
      match: { model: 'gpt-4o-mini', systemMessage: 'You are a billing agent' },
      response: { content: 'Billing answer.' },
    },
  );
  return fixtures;
}

function conversation(userText, tools) {
  const decoded = decodeChat({
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'You are a support agent. Be brief and precise.' },
      { role: 'user', content: userText },
    ],
    tools: tools.map((name) => ({
      type: 'function',
      function: { name, parameters: { type: 'object', properties: {} } },
    })),
  });
  if (!decoded.ok) throw new Error(decoded.error.message);
  return decoded.conversation;
}

function setup(n) {
  const model = new MockModel({ strictTurnIndex: false });
  model.use(fixturesFor(n));
  const requests = {
    // The last-registered keyed fixture: its literal occurs in a realistic, longer user message.
    last: conversation(
      `${literal(n - 1)}, please. Include the customer's last three messages and the build they run.`,
      ['search_tickets'],
    ),
    // No registered literal occurs in it: the index yields nothing and an unkeyed fixture answers.
    unindexed: conversation('Where is my order 5512? It was due on Monday and nothing has arrived yet.', [
      'lookup_order',
    ]),
    // Nothing answers: the diagnosis path (nearest fixtures) runs. A failing test's path, not a target.
    unmatched: conversation('Completely unrelated question about the weather in Lyon this weekend.', []),
  };
  const t0 = performance.now();
  const first = model.resolve(requests.last, WHAT); // builds the index
  const firstResolveMs = performance.now() - t0;
  const expect = { last: 'reply', unindexed: 'reply', unmatched: 'unmatched' };
  for (const [k, conv] of Object.entries(requests)) {
    const r = model.resolve(conv, WHAT);
    if (r.kind !== expect[k]) throw new Error(`n=${n} ${k}: expected ${expect[k]}, got ${r.kind}`);
    if (k === 'last' && r.entry.order !== n - 1) throw new Error(`n=${n}: the wrong fixture answered`);
    if (k === 'unindexed' && r.entry.order !== n) throw new Error(`n=${n}: the wrong fixture answered`);
  }
  if (first.kind !== 'reply') throw new Error('first resolve failed');
  return { model, requests, firstResolveMs };
}

/** Mean µs per resolve over one batch. */
function batch(model, conv, count) {
  const t0 = performance.now();
  for (let i = 0; i < count; i++) model.resolve(conv, WHAT);
  return ((performance.now() - t0) * 1000) / count;
}

const models = Object.fromEntries(SIZES.map((n) => [n, setup(n)]));
const kinds = { last: PER_BATCH, unindexed: PER_BATCH, unmatched: 20 };
const samples = {};
for (const n of SIZES) samples[n] = { last: [], unindexed: [], unmatched: [] };

// Warm-up, then batches alternating between sizes so both see the same machine state. The warm-up
// runs as many rounds as V8 takes to settle resolve's code: with one round, the first five or so
// timed batches of either size were 1.5-5x the later ones, and the ratio of the medians swung from
// 0.9x to 1.6x between runs of the same code.
for (let round = 0; round < WARMUP_ROUNDS; round++)
  for (const n of SIZES)
    for (const [k, count] of Object.entries(kinds)) batch(models[n].model, models[n].requests[k], count);
for (let b = 0; b < BATCHES; b++) {
  for (const n of b % 2 ? [...SIZES].reverse() : SIZES) {
    const { model, requests } = models[n];
    for (const [k, count] of Object.entries(kinds)) samples[n][k].push(batch(model, requests[k], count));
    model.calls.length = 0;
  }
}

// Test boundaries: the store drops test-scoped fixtures when a test ends. Time each later test's first
// resolve, for a test that registers nothing and for one that registers one fixture of its own.
const TEST_CYCLES = 3;
const firstCallPerTestMs = {};
const firstCallAfterUseMs = {};
const testFixture = { match: { userMessage: 'only in this test' }, response: { content: 'test-scoped' } };
for (const n of SIZES) {
  const { model, requests } = models[n];
  firstCallPerTestMs[n] = [];
  firstCallAfterUseMs[n] = [];
  for (let i = 0; i < TEST_CYCLES; i++) {
    model.endTest();
    model.beginTest();
    let t0 = performance.now();
    model.resolve(requests.last, WHAT);
    firstCallPerTestMs[n].push(performance.now() - t0);
    model.endTest();
    model.beginTest();
    model.use([testFixture]);
    t0 = performance.now();
    model.resolve(requests.last, WHAT);
    firstCallAfterUseMs[n].push(performance.now() - t0);
  }
  model.endTest();
}

writeFileSync(
  outputPath,
  JSON.stringify({
    batches: BATCHES,
    perBatch: kinds,
    samples,
    firstResolveMs: Object.fromEntries(SIZES.map((n) => [n, models[n].firstResolveMs])),
    firstCallPerTestMs,
    firstCallAfterUseMs,
  }),
);
