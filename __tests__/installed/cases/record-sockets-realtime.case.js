// An OpenAI Realtime voice agent's tool loop (the Agents SDK's RealtimeSession on its WebSocket
// transport), recorded from a stand-in provider and replayed from its cassette. The driver runs it
// in record mode against aimock (REC_OPENAI_BASE_URL), then in replay with aimock stopped and CI
// set, and again with the agent changed (REC_QUESTION: another path; REC_INSTRUCTIONS: another
// prompt), which must fail. The key goes in a header (the `ws` package), or in a subprotocol
// (Node's global WebSocket, as a browser sends it); the socket opens in process or over the served port.
const { expect, it } = require('./runner-globals.cjs');
const { RealtimeAgent, RealtimeSession, OpenAIRealtimeWebSocket, tool } = require('@openai/agents/realtime');
const { z } = require('zod');
const { understudy } = require('jest-understudy');

const QUESTION = process.env.REC_QUESTION ?? 'Where is order 7?';
const INSTRUCTIONS = process.env.REC_INSTRUCTIONS ?? 'You look orders up before you answer.';
const BASE = (process.env.REC_OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/^http/, 'ws');

function agent(looked) {
  return new RealtimeAgent({
    name: 'orders',
    instructions: INSTRUCTIONS,
    tools: [
      tool({
        name: 'lookup_order',
        description: 'Looks an order up by its number',
        parameters: z.object({ id: z.number() }),
        execute: async ({ id }) => {
          looked.push(id);
          return { id, status: 'shipped' };
        },
      }),
    ],
  });
}

/** The voice agent: says the question, resolves with the assistant's last completed answer. */
async function orderAgent(looked, { subprotocol = false, base = BASE } = {}) {
  const url = `${base}/realtime?model=gpt-realtime`;
  const transport = new OpenAIRealtimeWebSocket({
    url,
    ...(subprotocol && {
      createWebSocket: ({ url, apiKey }) =>
        new WebSocket(url, ['realtime', `openai-insecure-api-key.${apiKey}`]),
    }),
  });
  const session = new RealtimeSession(agent(looked), { transport, model: 'gpt-realtime' });
  await session.connect({ apiKey: process.env.OPENAI_API_KEY });
  try {
    const said = new Promise((resolve, reject) => {
      session.on('error', (event) => reject(event.error ?? event));
      session.on('history_updated', (history) => {
        const last = history.at(-1);
        if (last?.type === 'message' && last.role === 'assistant' && last.status === 'completed') {
          const text = last.content[0]?.transcript ?? last.content[0]?.text;
          if (text) resolve(text);
        }
      });
    });
    session.sendMessage(QUESTION);
    return await said;
  } finally {
    session.close();
  }
}

it('a Realtime tool loop (key in a header): the model looks the order up, then answers from the result', async () => {
  const looked = [];
  const run = await understudy.run(() => orderAgent(looked));
  expect(looked).toEqual([7]);
  expect(run.output).toBe('Order 7 has shipped.');
  expect(run).toHaveCalledTool('lookup_order', { id: 7 });
  expect(run).toHaveFinalMessage('Order 7 has shipped.');
  expect(run.modelCalls.map((c) => c.protocol)).toEqual(['openai.realtime', 'openai.realtime']);
});

it("a Realtime tool loop (Node's global WebSocket, key in a subprotocol): the same, recorded and replayed", async () => {
  const looked = [];
  const run = await understudy.run(() => orderAgent(looked, { subprotocol: true }));
  expect(looked).toEqual([7]);
  expect(run).toHaveCalledTool('lookup_order', { id: 7 });
  expect(run).toHaveFinalMessage('Order 7 has shipped.');
});

// Recorded in process (a served port stands for the provider's real URL, not the stand-in), replayed
// over the served port when the driver sets REC_REPLAY_SERVED: the cassette answers either carrier.
it('a Realtime tool loop recorded in process, replayed over the served port (an agent in another process)', async () => {
  const base = process.env.REC_REPLAY_SERVED
    ? (await understudy.serve()).urls.openai.replace(/^http/, 'ws')
    : BASE;
  const looked = [];
  const run = await understudy.run(() => orderAgent(looked, { base }));
  expect(looked).toEqual([7]);
  expect(run).toHaveCalledTool('lookup_order', { id: 7 });
  expect(run).toHaveFinalMessage('Order 7 has shipped.');
  // The carrier: the served port's socket is named by the provider's real URL.
  expect(understudy.sockets.map((s) => s.url)).toEqual([
    process.env.REC_REPLAY_SERVED
      ? 'wss://api.openai.com/v1/realtime?model=gpt-realtime'
      : `${BASE}/realtime?model=gpt-realtime`,
  ]);
});
