/**
 * A tool call's modelCallIndex is its position in run.modelCalls, whichever tests of the file run;
 * fileModelCallIndex counts the file's model calls. Each test appends what it saw to $INDEX_OUT
 * (calls.jsonl beside this file without it).
 * @understudy-world ./pyramid.world.yaml
 */
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
const { expect, it } = require('./runner-globals.cjs');
const { understudy, script } = require('jest-understudy');
const { agent } = require('./pyramid-agent');

it('warms the model up', async () => {
  understudy.model.use(script().user('hello').replies('hi'));
  await understudy.run(() => agent('hello'));
});

it('points each tool call at the model call that requested it', async () => {
  understudy.model.use(
    script().user('look up A-1').callsTool('lookup_order', { id: 'A-1' }).replies('A-1 totals 80'),
  );
  // An earlier run in the same test: the next run's calls still count from its own first model call.
  await understudy.run(() => agent('look up A-1'));
  understudy.model.use(
    script()
      .user('page about A-1')
      .callsTool('lookup_order', { id: 'A-1' })
      .callsTool('page_oncall', { id: 'p-1', text: 'A-1' })
      .replies('paged'),
  );
  const run = await understudy.run(() => agent('page about A-1'));
  expect(run.toolCalls.map((c) => [c.name, c.modelCallIndex])).toEqual([
    ['lookup_order', 0],
    ['page_oncall', 1],
  ]);
  for (const call of run.toolCalls) {
    const asking = run.modelCalls[call.modelCallIndex];
    expect(asking.response.toolCalls.map((t) => t.id)).toContain(call.id);
    expect(asking.index).toBe(call.fileModelCallIndex);
  }
  appendFileSync(
    process.env.INDEX_OUT ?? join(__dirname, 'calls.jsonl'),
    `${JSON.stringify(run.toolCalls.map(({ modelCallIndex, fileModelCallIndex }) => ({ modelCallIndex, fileModelCallIndex })))}\n`,
  );
});
