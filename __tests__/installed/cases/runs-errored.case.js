// An agent that throws or times out fails its test unless the test looks at how the run ended.
const { beforeAll, describe, expect, it } = require('./runner-globals.cjs');
const { understudy, createAgentHarness } = require('jest-understudy');

const crash = async () => {
  throw new Error('the agent crashed on purpose');
};

it('fails when the test never looks at a run that threw', async () => {
  const run = await understudy.run(crash);
  expect(run.toolsCalled).toEqual([]);
});

it('fails when the test never looks at a run that timed out', async () => {
  await understudy.run(() => new Promise(() => undefined), { timeoutMs: 20 });
});

it('fails with both the assertion and the agent error', async () => {
  const run = await understudy.run(crash);
  expect(run).toHaveCalledTool('lookup');
});

it('passes when the test reads run.terminalState', async () => {
  const run = await understudy.run(crash);
  expect(run.terminalState).toBe('errored');
});

it('passes when the test reads run.error', async () => {
  const run = await understudy.run(crash);
  expect(run.error.message).toBe('the agent crashed on purpose');
});

it('passes with toHaveTerminalState', async () => {
  const run = await understudy.run(() => new Promise(() => undefined), { timeoutMs: 20 });
  expect(run).toHaveTerminalState('timed_out');
});

it('passes with toMatchObject on the terminal state', async () => {
  const run = await understudy.run(crash);
  expect(run).toMatchObject({ terminalState: 'errored', toolsCalled: [] });
});

it('fails when the test only serialises the run', async () => {
  const run = await understudy.run(crash);
  expect(JSON.parse(JSON.stringify(run)).terminalState).toBe('errored');
});

it('passes with expectError', async () => {
  const run = await understudy.run(crash, { expectError: true });
  expect(run.toolsCalled).toEqual([]);
});

it('fails when a harness run threw and nobody looked', async () => {
  const harness = createAgentHarness({ agent: crash });
  await harness.run('hello');
});

it('passes with a harness created with expectError', async () => {
  const harness = createAgentHarness({ agent: crash, expectError: true });
  await harness.run('hello');
});

it('passes with expectError on one harness run', async () => {
  const harness = createAgentHarness({ agent: crash });
  await harness.run({ input: 'hello', expectError: true });
});

it('passes when a run succeeds and nothing is read', async () => {
  await understudy.run(async () => 'fine');
});

describe('a run made in beforeAll', () => {
  let run;
  beforeAll(async () => {
    run = await understudy.run(crash);
  });

  it('is looked at by a later test', () => {
    expect(run).toHaveTerminalState('errored');
  });
});
