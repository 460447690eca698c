/**
 * A matcher that fails on a run whose agent threw or timed out shows the terminal state and the
 * agent's error with its top frames, whatever was thrown: an Error, a raw `ws` error event (what
 * the Agents SDK's realtime connect() rejects with), null, a string.
 */
const { expect, it } = require('./runner-globals.cjs');
const { RealtimeAgent, RealtimeSession } = require('@openai/agents/realtime');
const { understudy } = require('jest-understudy');

function parseOrders(payload) {
  return payload.orders.map((order) => order.id);
}

async function ordersAgent() {
  return parseOrders(undefined);
}

async function realtimeAgent() {
  const session = new RealtimeSession(new RealtimeAgent({ name: 'voice', instructions: 'Help.' }), {
    transport: 'websocket',
  });
  // Older Agents SDKs report a failed connection only as the session's error event, newer ones
  // also reject connect(): either way the agent throws the raw ws ErrorEvent.
  await new Promise((resolve, reject) => {
    session.on('error', (event) => reject(event.error ?? event));
    // A host nothing serves: the socket is refused, as a network failure would refuse it.
    session
      .connect({ apiKey: 'sk-test-realtime', url: 'wss://realtime.invalid/v1/realtime?model=gpt-realtime' })
      .then(resolve, reject);
  });
}

it('shows the error and its frames under a failed toHaveCalledTool', async () => {
  const run = await understudy.run(ordersAgent, { expectError: true });
  expect(run).toHaveCalledTool('lookup_order');
});

it('shows a timeout under a failed toHaveFinalMessage', async () => {
  const run = await understudy.run(() => new Promise(() => undefined), { timeoutMs: 20, expectError: true });
  expect(run).toHaveFinalMessage('done');
});

it('prints a raw ws error event from the Agents SDK realtime connect()', async () => {
  const run = await understudy.run(realtimeAgent);
  expect(run).toHaveTerminalState('succeeded');
});

it('prints a thrown null', async () => {
  const run = await understudy.run(async () => {
    throw null;
  });
  expect(run).toHaveTerminalState('succeeded');
});

it('prints a thrown string', async () => {
  const run = await understudy.run(
    async () => {
      throw 'quota exceeded';
    },
    { expectError: true },
  );
  expect(run).toHaveCalledToolSequence(['lookup_order']);
});
