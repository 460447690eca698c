// The Mastra test bodies, written once and run under both runners (../mastra.case.mjs under Jest
// with --experimental-vm-modules, mastra.test.mjs under Vitest): each takes the runner's `expect`,
// `spyOn` and a way to turn its fake timers on and off. The refunds agent (mastra-agent.mjs) runs
// whole loops with agent.generate and agent.stream on replayed fixtures, its tools served by the
// world (mastra.world.yaml) through mockTool in process, and over HTTP when the agent's app runs in
// a child process on the served port; each wrongly wired agent must fail on the trajectory, with
// jest-understudy's message.

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mockTool, script, understudy } from 'jest-understudy';
import { ask, MODELS, orders, refundsAgent } from './mastra-agent.mjs';

const APP = fileURLToPath(new URL('./mastra-app.mjs', import.meta.url));

const QUESTION = 'Please refund order A-1';
const FINAL = 'Refunded A-1: 42 EUR.';

/** The wire protocol each model's requests must arrive on. */
const PROTOCOLS = {
  'openai (router, Responses API)': 'openai.responses',
  'openai (AI SDK provider, Chat Completions)': 'openai.chat',
  'anthropic (router, Messages API)': 'anthropic.messages',
  'google (router, Gemini API)': 'gemini.generateContent',
};

/** The model's side of the conversation. */
function useRefundScript() {
  understudy.model.use(
    script()
      .user('refund order A-1')
      .callsTool('lookup_order', { id: 'A-1' })
      .callsTool('refund_order', { id: 'A-1' })
      .replies(FINAL),
  );
}

/** The model's side, and the order desk's functions replaced by world operations. */
function setUp(spyOn) {
  useRefundScript();
  const binding = understudy.world.bind({ actorId: 'agent' });
  const served = (operationId) =>
    mockTool(binding, {
      mode: 'async',
      operation: { packageId: 'orders', operationId },
      input: (id) => ({ id }),
    });
  spyOn(orders, 'lookup').mockImplementation(served('orders.get'));
  spyOn(orders, 'refund').mockImplementation(served('orders.refund'));
}

/** The loop a right agent makes: both tools in order, served without error, then the answer. */
function expectRefunded(expect, run) {
  expect(run).toHaveCalledToolSequence(
    [
      { name: 'lookup_order', args: { id: 'A-1' }, outcome: 'ok' },
      { name: 'refund_order', args: { id: 'A-1' }, outcome: 'ok' },
    ],
    { args: 'exact' },
  );
  expect(run).toHaveFinalMessage(FINAL);
  expect(run).toHaveTerminalState('succeeded');
  expect(understudy.world.state.orders.orders['A-1'].status).toBe('refunded');
}

/** Title → [body({ expect, spyOn, fakeTimers, realTimers }), passes]. */
const scenarios = {};

for (const [name, model] of Object.entries(MODELS))
  for (const stream of [false, true])
    scenarios[`${name}, ${stream ? 'agent.stream' : 'agent.generate'}: refunds the order`] = [
      async ({ expect, spyOn }) => {
        setUp(spyOn);
        const run = await understudy.run(() => ask(refundsAgent({ model: model() }), QUESTION, { stream }));
        expectRefunded(expect, run);
        expect(run.modelCalls.map((call) => [call.protocol, call.streamed])).toEqual(
          Array(3).fill([PROTOCOLS[name], stream]),
        );
      },
      true,
    ];

/**
 * The agent's app in a child process, its providers and order desk the served port's (read inside
 * the run, so the child's calls are the run's); resolves to what it printed.
 */
async function askApp(model, method) {
  const served = await understudy.serve();
  return understudy.run(
    () =>
      new Promise((resolve, reject) =>
        execFile(
          process.execPath,
          [APP, model, method],
          { env: { ...process.env, ...served.env, ORDERS_URL: served.urls.world.orders }, timeout: 60_000 },
          (error, stdout, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
        ),
      ),
  );
}

// Mastra's router sends a Google model to Google's own URL whatever the environment says: a Mastra
// app in a child process reaches the served port with its OpenAI and Anthropic models.
for (const name of Object.keys(MODELS).filter((name) => !name.startsWith('google')))
  for (const method of ['generate', 'stream'])
    scenarios[`${name}, agent.${method} in a child process over the served port: refunds the order`] = [
      async ({ expect }) => {
        useRefundScript();
        const run = await askApp(name, method);
        expectRefunded(expect, run);
        expect(run.modelCalls.map((call) => [call.protocol, call.streamed])).toEqual(
          Array(3).fill([PROTOCOLS[name], method === 'stream']),
        );
        expect(understudy.world.operations.map((op) => [op.operationId, op.transport])).toEqual([
          ['orders.get', 'http'],
          ['orders.refund', 'http'],
        ]);
      },
      true,
    ];

// Mastra runs each tool's execute in a setImmediate: fake timers that fake it hold every tool call
// until the test advances them, with or without jest-understudy; the rest of the loop runs on fake
// timers as it does on real ones.
for (const stream of [false, true])
  scenarios[
    `fake timers that leave setImmediate real, ${stream ? 'agent.stream' : 'agent.generate'}: refunds the order`
  ] = [
    async ({ expect, spyOn, fakeTimers, realTimers }) => {
      fakeTimers();
      try {
        const start = Date.now();
        setUp(spyOn);
        const run = await understudy.run(() => ask(refundsAgent(), QUESTION, { stream }));
        expectRefunded(expect, run);
        expect(run.modelCalls.map((call) => call.streamed)).toEqual([stream, stream, stream]);
        // The clock was fake throughout: nothing advanced it.
        expect(Date.now()).toBe(start);
      } finally {
        realTimers();
      }
    },
    true,
  ];

/** A wrongly wired agent, run as the right one is; its test must fail. */
const wrong = (agentOptions, askOptions = {}) => [
  async ({ expect, spyOn }) => {
    setUp(spyOn);
    const run = await understudy.run(() => ask(refundsAgent(agentOptions), QUESTION, askOptions));
    expectRefunded(expect, run);
  },
  false,
];

scenarios['wrong tool: tools registered under camelCase keys offer the model other names'] = wrong({
  camelCaseTools: true,
});
scenarios['wrong args: a schema that lower-cases the id refunds an order that does not exist'] = wrong({
  lowercaseIds: true,
});
scenarios['never calls the tool: a refund that waits for an approval is requested but never run'] = wrong({
  approveRefunds: true,
});
scenarios['stops early: a one-step limit ends the loop after the lookup'] = wrong({}, { maxSteps: 1 });
scenarios['stops early, streamed: a one-step limit ends the loop after the lookup'] = wrong(
  {},
  { maxSteps: 1, stream: true },
);

export default scenarios;
