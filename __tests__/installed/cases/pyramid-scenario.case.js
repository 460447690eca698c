/**
 * The scenario builder from the installed package: tool fakes recorded like world operations,
 * a world file with its own starting state, immutability, and nothing left behind.
 */
const { expect, it } = require('./runner-globals.cjs');
const { join } = require('node:path');
const { mockTool, script, understudy } = require('jest-understudy');
const { toolLoop } = require('./pyramid-runs-agent');

class FakeK8s {
  constructor({ namespaces }) {
    this.namespaces = namespaces;
    this.rollbacks = [];
  }
  getDeploy({ version }) {
    return { version, namespace: this.namespaces[0], healthy: false };
  }
  async rollback({ version }) {
    this.rollbacks.push(version);
    return { rolledBack: version };
  }
}

const rollbackFlow = script()
  .user('Rollback deploy v2.4.1')
  .callsTool('get_deploy', { version: 'v2.4.1' })
  .callsTool('rollback', { version: 'v2.4.1' })
  .replies('Rolled back v2.4.1.');

const base = understudy.scenario().withToolFake('k8s', () => new FakeK8s({ namespaces: ['canary', 'prod'] }));

const agent = ({ user, tools }) => toolLoop({ user, tools });

it('runs the agent with a tool fake and records its calls', async () => {
  const run = await base.withFixtures(rollbackFlow).executeAgent(agent, { user: 'Rollback deploy v2.4.1' });
  expect(run.toolsCalled).toEqual(['get_deploy', 'rollback']);
  expect(
    run.operations.map((o) => `${o.packageId}/${o.operationId} ${o.transport} ${o.outcome.kind}`),
  ).toEqual(['k8s/getDeploy fake ok', 'k8s/rollback fake ok']);
  expect(run.operations[1].toolCallId).toBe(run.toolCalls[1].id);
  expect(run.fakes.k8s.rollbacks).toEqual(['v2.4.1']);
  expect(run).toHaveCalledTool('rollback', { version: 'v2.4.1' });
});

it('is immutable: a with… call returns a new scenario and leaves the base alone', async () => {
  const withFixtures = base.withFixtures(rollbackFlow);
  expect(withFixtures).not.toBe(base);
  // The base has no fixtures: its run has no model answer.
  const run = await base.executeAgent(agent, { user: 'Rollback deploy v2.4.1', expectError: true });
  expect(run.terminalState).toBe('errored');
  expect(understudy.model.acceptUnmatched()).toHaveLength(1);
});

it('no false green: the fixtures of a scenario run do not answer a later run', async () => {
  await base.withFixtures(rollbackFlow).executeAgent(agent, { user: 'Rollback deploy v2.4.1' });
  // Outside the scenario nothing answers: the unmatched request fails this test.
  await understudy.run(() => toolLoop({ user: 'Rollback deploy v2.4.1', tools: {} }), { expectError: true });
});

it('acts in its own world file from the state it is given', async () => {
  const refund = mockTool;
  const run = await understudy
    .scenario()
    .withWorld(join(__dirname, 'pyramid-runs.world.yaml'))
    .withInitialState({
      desk: { orders: { 'B-7': { id: 'B-7', amount: 900, status: 'paid' } }, refunds: {} },
    })
    .withSeed(7)
    .withFixtures(
      script()
        .user('Refund B-7')
        .callsTool('get_order', { id: 'B-7' })
        .callsTool('refund', { orderId: 'B-7', amount: 900 })
        .replies('Refunded B-7.'),
    )
    .executeAgent(
      ({ user, binding }) =>
        toolLoop({
          user,
          tools: {
            get_order: refund(binding, {
              mode: 'async',
              operation: { packageId: 'desk', operationId: 'orders.get' },
            }),
            refund: refund(binding, {
              mode: 'async',
              operation: { packageId: 'desk', operationId: 'refunds.create' },
            }),
          },
        }),
      { user: 'Refund B-7' },
    );
  expect(run.toolsCalled).toEqual(['get_order', 'refund']);
  expect(run.toolCalls[0].result).toMatchObject({ id: 'B-7', amount: 900 });
  expect(Object.values(run.world.state.desk.refunds)).toEqual([expect.objectContaining({ orderId: 'B-7' })]);
  // The initial state replaced the file's orders for this run only.
  expect(run.world.state.desk.orders['A-1']).toBeUndefined();
});

it('refuses a fake that is not an object, naming the argument', () => {
  expect(() => understudy.scenario().withToolFake('k8s', 42)).toThrow(
    'withToolFake("k8s", …): fake must be an object whose methods are tools, or a function that makes one, received number',
  );
});
