// The real agent frameworks under Vitest, each driving a whole tool loop on its own OpenAI client:
// the OpenAI Agents SDK (Responses API), AI SDK 7 (@ai-sdk/openai) and LangGraph (@langchain/openai
// in a StateGraph with a ToolNode), each plain and streamed. Each agent looks an order up, refunds it and
// answers. Each framework also has a wrongly wired agent that stops after its first tool, whose
// test must fail on the trajectory matchers.

import { createOpenAI } from '@ai-sdk/openai';
import { HumanMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, tool as agentsTool, run as runAgent } from '@openai/agents';
import { tool as aiTool, generateText, jsonSchema, stepCountIs, streamText } from 'ai';
import { script, understudy } from 'jest-understudy';
import { expect, it } from 'vitest';
import { z } from 'zod';

const QUESTION = 'Please refund order A-1';
const FINAL = 'Refunded A-1: 42 EUR.';

/** What the tools did, so a test can tell a tool the agent ran from one it only named. */
let ran = [];
const lookup = ({ id }) => {
  ran.push(`lookup_order:${id}`);
  return JSON.stringify({ id, total: 42, currency: 'EUR' });
};
const refund = ({ id }) => {
  ran.push(`refund_order:${id}`);
  return JSON.stringify({ id, refunded: true });
};

function useRefundScript() {
  ran = [];
  understudy.model.use(
    script()
      .user('refund')
      .callsTool('lookup_order', { id: 'A-1' })
      .callsTool('refund_order', { id: 'A-1' })
      .replies(FINAL),
  );
}

/** The loop every framework's agent must make: both tools in order, each answered, then the answer. */
function expectRefundRun(run) {
  expect(run).toHaveCalledToolSequence(
    [
      { name: 'lookup_order', args: { id: 'A-1' } },
      { name: 'refund_order', args: { id: 'A-1' } },
    ],
    { args: 'exact' },
  );
  expect(run).toHaveFinalMessage(FINAL);
  expect(run).toHaveTerminalState('succeeded');
  expect(run.toolCalls.every((call) => call.answered)).toBe(true);
  expect(ran).toEqual(['lookup_order:A-1', 'refund_order:A-1']);
}

// ── OpenAI Agents SDK ──

const idParameters = z.object({ id: z.string() });

function agentsAgent({ stopOnFirstTool = false } = {}) {
  return new Agent({
    name: 'Refunds',
    instructions: 'Look the order up, then refund it.',
    model: 'gpt-4o-mini',
    tools: [
      agentsTool({
        name: 'lookup_order',
        description: 'Look an order up',
        parameters: idParameters,
        execute: lookup,
      }),
      agentsTool({
        name: 'refund_order',
        description: 'Refund an order',
        parameters: idParameters,
        execute: refund,
      }),
    ],
    // A real wiring mistake: the first tool's output becomes the final answer.
    ...(stopOnFirstTool && { toolUseBehavior: 'stop_on_first_tool' }),
  });
}

async function runAgentsSdk(agent, stream) {
  if (!stream) return (await runAgent(agent, QUESTION)).finalOutput;
  const result = await runAgent(agent, QUESTION, { stream: true });
  await result.completed;
  return result.finalOutput;
}

it.each([
  ['plain', false],
  ['streamed', true],
])('agents sdk (%s): runs the whole refund loop', async (_, stream) => {
  useRefundScript();
  const run = await understudy.run(() => runAgentsSdk(agentsAgent(), stream));
  expectRefundRun(run);
  expect(run.modelCalls.map((call) => call.streamed)).toEqual([stream, stream, stream]);
});

it('agents sdk: an agent that stops on its first tool fails the trajectory', async () => {
  useRefundScript();
  const run = await understudy.run(
    async () => (await runAgent(agentsAgent({ stopOnFirstTool: true }), QUESTION)).finalOutput,
  );
  expectRefundRun(run);
});

// ── AI SDK 7 ──

const idSchema = jsonSchema({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] });

async function aiSdkAgent({ stream = false, steps = 4 } = {}) {
  const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
  const options = {
    model: openai.chat('gpt-4o-mini'),
    prompt: QUESTION,
    stopWhen: stepCountIs(steps),
    tools: {
      lookup_order: aiTool({ inputSchema: idSchema, execute: async (args) => lookup(args) }),
      refund_order: aiTool({ inputSchema: idSchema, execute: async (args) => refund(args) }),
    },
  };
  if (!stream) return (await generateText(options)).text;
  const result = streamText(options);
  return await result.text;
}

it.each([
  ['plain', false],
  ['streamed', true],
])('ai sdk 7 (%s): runs the whole refund loop', async (_, stream) => {
  useRefundScript();
  const run = await understudy.run(() => aiSdkAgent({ stream }));
  expectRefundRun(run);
  expect(run.modelCalls.map((call) => call.streamed)).toEqual([stream, stream, stream]);
});

it('ai sdk 7: an agent whose step limit ends the loop after its first tool fails the trajectory', async () => {
  useRefundScript();
  const run = await understudy.run(() => aiSdkAgent({ steps: 1 }));
  expectRefundRun(run);
});

// ── LangGraph ──

function langGraphAgent({ backToModel = true, streaming = false } = {}) {
  const tools = [
    langchainTool(lookup, { name: 'lookup_order', description: 'Look an order up', schema: idParameters }),
    langchainTool(refund, { name: 'refund_order', description: 'Refund an order', schema: idParameters }),
  ];
  // streamUsage: the stream reports its token counts (the OpenAI default LangChain asks for).
  const model = new ChatOpenAI({ model: 'gpt-4o-mini', maxRetries: 0, streamUsage: true }).bindTools(tools);
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
    // The wrong graph's tools lead nowhere: the model never sees the first result.
    .addEdge('tools', backToModel ? 'agent' : END)
    .compile();
  return async (text) => {
    const { messages } = await graph.invoke({ messages: [new HumanMessage(text)] });
    const last = messages.at(-1);
    return last?.getType() === 'ai' ? last.content : undefined;
  };
}

it.each([
  ['plain', false],
  ['streamed', true],
])('langgraph (%s): runs the whole refund loop', async (_, streaming) => {
  useRefundScript();
  const run = await understudy.run(() => langGraphAgent({ streaming })(QUESTION));
  expectRefundRun(run);
  expect(run.modelCalls.map((call) => call.streamed)).toEqual([streaming, streaming, streaming]);
});

it('langgraph: a graph whose tools do not lead back to the model fails the trajectory', async () => {
  useRefundScript();
  const run = await understudy.run(() => langGraphAgent({ backToModel: false })(QUESTION));
  expectRefundRun(run);
});
