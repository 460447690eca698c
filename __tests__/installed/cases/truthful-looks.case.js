/**
 * An agent that throws fails its test unless the test itself looks at how the run ended. Only an
 * explicit look counts: the product's matchers reading the run to build a message, a spread, a
 * whole-object comparison, printing and serialising never do.
 */
const { inspect } = require('node:util');
const { expect, it } = require('./runner-globals.cjs');
const { createAgentHarness, understudy } = require('jest-understudy');

const crash = async () => {
  throw new Error('the agent crashed on purpose');
};

it('no false green: not.toHaveFinalMessage on an agent that threw', async () => {
  const run = await understudy.run(crash);
  expect(run).not.toHaveFinalMessage('refund');
});

it('no false green: not.toHaveCalledTool on an agent that threw', async () => {
  const run = await understudy.run(crash);
  expect(run).not.toHaveCalledTool('issue_refund');
});

it('no false green: a failing matcher caught by the test', async () => {
  const run = await understudy.run(crash);
  expect(() => expect(run).toHaveFinalMessage('refunded')).toThrow('errored');
});

it('no false green: a spread of the run', async () => {
  const run = await understudy.run(crash);
  const copy = { ...run };
  expect(copy.toolsCalled).toEqual([]);
});

it('no false green: toEqual on the whole run', async () => {
  const run = await understudy.run(crash);
  expect(run).toEqual({ ...run });
});

it('no false green: objectContaining without the outcome', async () => {
  const run = await understudy.run(crash);
  expect(run).toEqual(expect.objectContaining({ toolsCalled: [] }));
});

it('no false green: printing the run', async () => {
  const run = await understudy.run(crash);
  expect(inspect(run)).toContain('errored');
});

it('no false green: a harness run and toMatchObject without the outcome', async () => {
  const harness = createAgentHarness({ agent: crash });
  const run = await harness.run('hello');
  expect(run).toMatchObject({ toolsCalled: [] });
});

it('no false green: a run that timed out, asserted only on its calls', async () => {
  const run = await understudy.run(() => new Promise(() => undefined), { timeoutMs: 20 });
  expect(run).not.toHaveCalledToolSequence(['issue_refund']);
});

it('looks: toMatchObject naming the terminal state', async () => {
  const run = await understudy.run(crash);
  expect(run).toMatchObject({ terminalState: 'errored', toolsCalled: [] });
});

it('looks: toHaveProperty on the error', async () => {
  const run = await understudy.run(crash);
  expect(run).toHaveProperty('error.message', 'the agent crashed on purpose');
});

it('looks: objectContaining naming the terminal state', async () => {
  const run = await understudy.run(crash);
  expect(run).toEqual(expect.objectContaining({ terminalState: 'errored' }));
});

it('looks: destructuring the error', async () => {
  const { error } = await understudy.run(crash);
  expect(error).toBeInstanceOf(Error);
});

it('looks: toHaveTerminalState', async () => {
  const run = await understudy.run(crash);
  expect(run).toHaveTerminalState('errored');
});

it('serialising and printing still show how the run ended', async () => {
  const run = await understudy.run(crash, { expectError: true });
  expect(JSON.parse(JSON.stringify(run))).toMatchObject({ terminalState: 'errored' });
  expect(inspect(run)).toContain("terminalState: 'errored'");
});
