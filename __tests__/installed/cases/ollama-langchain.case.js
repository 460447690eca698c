// LangChain's ChatOllama (`@langchain/ollama`) over Ollama's native /api/chat, from the installed
// package: `bindTools` in a LangGraph tool loop (a StateGraph with the prebuilt ToolNode), plain
// (`invoke`) and streamed (`stream`). ChatOllama sends back tool calls with ids of its own making
// and results without any: the run still links each call to its result. The tests named "must
// fail" hold a wrong agent or assertion; the driver checks each fails, with jest-understudy's message.
const { expect, it } = require('./runner-globals.cjs');
const { ChatOllama } = require('@langchain/ollama');
const { tool } = require('@langchain/core/tools');
const { HumanMessage } = require('@langchain/core/messages');
const { END, MessagesAnnotation, START, StateGraph } = require('@langchain/langgraph');
const { ToolNode, toolsCondition } = require('@langchain/langgraph/prebuilt');
const { z } = require('zod');
const { understudy, script } = require('jest-understudy');

const QUESTION = 'Refund order A-1002, please.';
const id = z.object({ id: z.string() });
const tools = [
  tool(({ id }) => JSON.stringify({ id, status: 'delivered', total: 42 }), {
    name: 'lookup_order',
    description: 'Look an order up',
    schema: id,
  }),
  tool(({ id }) => JSON.stringify({ id, refunded: true }), {
    name: 'refund_order',
    description: 'Refund an order',
    schema: id,
  }),
];

const refundScript = () =>
  script()
    .user('Refund order')
    .callsTool('lookup_order', { id: 'A-1002' })
    .callsTool('refund_order', { id: 'A-1002' })
    .replies('Order A-1002 is refunded.');

/** `backToModel: false`: the wrong graph, whose tools lead nowhere (the model never sees a result). */
function agent({ streaming = false, backToModel = true } = {}) {
  const model = new ChatOllama({ model: 'llama3.2', baseUrl: 'http://localhost:11434' }).bindTools(tools);
  const reply = async (messages) => {
    if (!streaming) return model.invoke(messages);
    let message;
    for await (const chunk of await model.stream(messages)) message = message ? message.concat(chunk) : chunk;
    return message;
  };
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await reply(state.messages)] }))
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition)
    .addEdge('tools', backToModel ? 'agent' : END)
    .compile();
  return async (text) => {
    const { messages } = await graph.invoke({ messages: [new HumanMessage(text)] });
    const last = messages.at(-1);
    return last?.getType() === 'ai' ? last.content : undefined;
  };
}

function expectRefund(run) {
  expect(run).toHaveCalledToolSequence([
    { name: 'lookup_order', args: { id: 'A-1002' } },
    { name: 'refund_order', args: { id: 'A-1002' } },
  ]);
  expect(run.toolCalls.map((c) => c.result)).toEqual([
    { id: 'A-1002', status: 'delivered', total: 42 },
    { id: 'A-1002', refunded: true },
  ]);
  expect(run).toHaveFinalMessage('Order A-1002 is refunded.');
  expect(run.terminalState).toBe('succeeded');
}

for (const streaming of [false, true]) {
  const how = streaming ? 'streamed' : 'plain';

  it(`${how}: the LangGraph loop looks the order up, refunds it and answers`, async () => {
    understudy.model.use(refundScript());
    const run = await understudy.run(() => agent({ streaming })(QUESTION));
    expectRefund(run);
    expect(run.modelCalls.map((c) => [c.protocol, c.streamed])).toEqual([
      ['ollama.chat', true],
      ['ollama.chat', true],
      ['ollama.chat', true],
    ]);
  });

  it(`${how} must fail: a graph whose tools do not lead back to the model`, async () => {
    understudy.model.use(refundScript());
    const run = await understudy.run(() => agent({ streaming, backToModel: false })(QUESTION));
    expectRefund(run);
  });
}

it('must fail: the test expects the refund of another order', async () => {
  understudy.model.use(refundScript());
  const run = await understudy.run(() => agent()(QUESTION));
  expect(run).toHaveCalledTool('refund_order', { id: 'B-7' });
});

it('must fail: the test expects a tool the agent never called', async () => {
  understudy.model.use(refundScript());
  const run = await understudy.run(() => agent()(QUESTION));
  expect(run).toHaveCalledTool('cancel_order');
});
