// Thousands of model calls in one test: what the product keeps of them after a reset, and
// the trace a failing test writes after them.
const v8 = require('node:v8');
const vm = require('node:vm');
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const heap = () => {
  gc();
  gc();
  return v8.getHeapStatistics().used_heap_size;
};
const CALLS = Number(process.env.WRITES_CALLS ?? 2000);

async function callMany(n, text) {
  const client = new OpenAI({ maxRetries: 0 });
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  for (let i = 0; i < n; i++)
    await understudy.run(() =>
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: `question ${i}: ${text}` },
        ],
      }),
    );
}

it('lets the evidence of earlier calls go on model.reset()', async () => {
  const before = heap();
  await callMany(CALLS, 'y'.repeat(500));
  const refs = understudy.model.calls.filter((_, i) => i % 100 === 0).map((call) => new WeakRef(call));
  const loaded = heap();
  // While the call log holds them they stay: the check below can see a leak.
  expect(refs.every((r) => r.deref() !== undefined)).toBe(true);
  understudy.model.reset();
  // A WeakRef holds its target until the current job ends: collect in the next one.
  await new Promise((resolve) => setImmediate(resolve));
  const after = heap();
  console.log(
    `heap: ${CALLS} calls ${Math.round((loaded - before) / 1e5) / 10} MB, after reset ${Math.round((after - before) / 1e5) / 10} MB`,
  );
  expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
});

it('writes a bounded trace of a failing test after many calls', async () => {
  await callMany(CALLS, 'z'.repeat(4000));
  // One payload far over its budget.
  await callMany(1, 'w'.repeat(1_000_000));
  expect('the test').toBe('failing on purpose');
});
