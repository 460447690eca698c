/**
 * @understudy-fixtures judge-budgets.fixture.json
 */
// Cost and latency budgets on replayed runs: fixtures with usage and latency, the clock scaled to
// nothing (timeScale 0), so the latency is the fixtures', not the wall clock's. A file named
// judge-budget-fail beside the case turns each assertion round (the must-fail variant): a flag of
// the case's folder, so both variants run as projects of one child.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

const failing = existsSync(join(__dirname, 'judge-budget-fail'));

async function agent(model) {
  const client = new OpenAI({ maxRetries: 0 });
  const ask = async (content) =>
    (await client.chat.completions.create({ model, messages: [{ role: 'user', content }] })).choices[0]
      .message.content;
  return `${await ask('first')} ${await ask('second')}`;
}

it('stays within its cost budget', async () => {
  const run = await understudy.run(() => agent('gpt-4o-mini'));
  // 2 × (100 000 in × $0.15 + 10 000 out × $0.60) per million = $0.042
  if (failing) expect(run).toHaveCostBelow(0.04);
  else {
    expect(run).toHaveCostBelow(0.043);
    expect(run).not.toHaveCostBelow(0.041);
  }
});

it('stays within its latency budget', async () => {
  const started = Date.now();
  const run = await understudy.run(() => agent('gpt-4o-mini'));
  expect(Date.now() - started).toBeLessThan(2000);
  // 2 × 300 ms of fixture latency, though the clock waited for none of it.
  if (failing) expect(run).toHaveLatencyBelow(600);
  else {
    expect(run).toHaveLatencyBelow(601);
    expect(run).not.toHaveLatencyBelow(600);
  }
});

it('fails a cost budget on a model with no price, whichever way it is asserted', async () => {
  const run = await understudy.run(() => agent('gpt-unpriced'));
  if (failing) expect(run).not.toHaveCostBelow(0);
  else expect(run).toHaveCostBelow(1000);
});
