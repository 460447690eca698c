/**
 * Real MCP clients, each driving a real agent loop against the world's MCP server while the mock
 * model replays the model side: `@modelcontextprotocol/sdk`'s Client (Streamable HTTP and
 * in-process) under a hand-written OpenAI Chat loop, the AI SDK's MCP client with
 * `generateText`, the OpenAI Agents SDK's `MCPServerStreamableHttp`, and
 * `@langchain/mcp-adapters` under a LangGraph ReAct agent. In each, the first save meets a
 * `times: 1` BUSY override and the agent retries it; the operations land on the run, linked to
 * the tool calls that caused them.
 *
 * @understudy-world ../../../../../fixtures/worlds/notes.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { createOpenAI } from '@ai-sdk/openai';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ChatOpenAI } from '@langchain/openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, MCPServerStreamableHttp, run as runAgent, setDefaultOpenAIKey } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { type Run, script, understudy } from 'jest-understudy';
import OpenAI from 'openai';

const NOTES = 'https://notes.example.test/mcp';
const TASK = 'Save note-9 with the text "nine".';
const SAVE = { id: 'note-9', text: 'nine' };
const ANSWER = 'Saved note-9.';

beforeEach(() => {
  understudy.world.reset({ scenario: 'busy-notes' });
});

/** The model calls save_note, reads the BUSY result, calls it again, then answers. */
const modelRetries = () =>
  script().user('note-9').callsTool('save_note', SAVE).callsTool('save_note', SAVE).replies(ANSWER);

/** The model calls save_note once; the agent's own code retries what the server calls retryable. */
const agentRetries = () => script().user('note-9').callsTool('save_note', SAVE).replies(ANSWER);

/** Two operations on the world through MCP: the BUSY the override chose, then the saved note. */
function expectRetriedSave(run: Run<unknown, unknown>) {
  expect(run.terminalState).toBe('succeeded');
  expect(run.operations.map((o) => [o.transport, o.operationId, o.outcome.kind, o.override?.id])).toEqual([
    ['mcp', 'notes.save', 'error', 'busy-once'],
    ['mcp', 'notes.save', 'ok', undefined],
  ]);
  expect(run.operations[0].outcome).toMatchObject({ error: { code: 'BUSY', retryable: true } });
  expect(understudy.world.state.notes.notes['note-9']).toEqual(SAVE);
  expect(run).toHaveFinalMessage(ANSWER);
}

/** The model saw the BUSY result and called the tool again: each operation linked to its own call. */
function expectModelRetry(run: Run<unknown, unknown>) {
  expectRetriedSave(run);
  expect(run).toHaveCalledToolSequence([
    { name: 'save_note', args: SAVE },
    { name: 'save_note', args: SAVE },
  ]);
  expect(JSON.stringify(run.toolCalls[0].result ?? run.toolCalls[0].error)).toContain('BUSY');
  expect(run.operations.map((o) => o.toolCallId)).toEqual(run.toolCalls.map((c) => c.id));
  expect(run.toolCalls.map((c) => c.operations)).toEqual([[run.operations[0].seq], [run.operations[1].seq]]);
}

/** An agent on the OpenAI Chat API whose tools are an MCP client's; it retries retryable tool errors itself. */
async function chatAgent(client: Client, task: string): Promise<string | null> {
  const openai = new OpenAI({ apiKey: 'test-key', maxRetries: 0 });
  const { tools } = await client.listTools();
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: task }];
  for (let turn = 0; turn < 5; turn++) {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages,
      tools: tools.map((t) => ({
        type: 'function' as const,
        function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
      })),
    });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      const args = JSON.parse(call.function.arguments);
      let result = await client.callTool({ name: call.function.name, arguments: args });
      for (let attempt = 1; result.isError && attempt < 3; attempt++) {
        const envelope = JSON.parse((result.content as Array<{ text: string }>)[0].text);
        if (!envelope.retryable) break;
        result = await client.callTool({ name: call.function.name, arguments: args });
      }
      const text = (result.content as Array<{ type: string; text?: string }>)
        .map((c) => c.text ?? '')
        .join('');
      messages.push({ role: 'tool', tool_call_id: call.id, content: text });
    }
  }
  throw new Error('the agent did not finish');
}

describe('@modelcontextprotocol/sdk Client with an OpenAI Chat agent', () => {
  const transports: Array<[string, () => Transport]> = [
    ['Streamable HTTP', () => new StreamableHTTPClientTransport(new URL(NOTES))],
    ['in-process', () => understudy.world.mcpTransport('notes')],
  ];
  it.each(transports)(
    'over %s: the agent retries the BUSY save; both operations land on the one tool call',
    async (_, transport) => {
      understudy.model.use(agentRetries());
      const run = await understudy.run(async () => {
        const client = new Client({ name: 'notes-agent', version: '1.0.0' });
        await client.connect(transport());
        try {
          return await chatAgent(client, TASK);
        } finally {
          await client.close();
        }
      });
      expectRetriedSave(run);
      expect(run).toHaveCalledToolSequence([{ name: 'save_note', args: SAVE }]);
      // A retry loop inside one tool call: every operation it caused lands on that call.
      expect(run.toolCalls[0].operations).toEqual(run.operations.map((o) => o.seq));
      expect(run.operations.map((o) => o.toolCallId)).toEqual([run.toolCalls[0].id, run.toolCalls[0].id]);
      expect(run.toolCalls[0].result).toEqual(SAVE);
    },
  );
});

describe("the AI SDK's MCP client with generateText", () => {
  const openai = createOpenAI({ apiKey: 'test-key' });
  const transports: Array<[string, () => Parameters<typeof createMCPClient>[0]['transport']]> = [
    ['Streamable HTTP', () => ({ type: 'http', url: NOTES })],
    ['in-process', () => understudy.world.mcpTransport('notes')],
  ];
  it.each(transports)(
    'over %s: the model reads the BUSY result and calls the tool again',
    async (_, transport) => {
      understudy.model.use(modelRetries());
      const run = await understudy.run(async () => {
        const mcp = await createMCPClient({ transport: transport() });
        try {
          const result = await generateText({
            model: openai('gpt-4o'),
            tools: await mcp.tools(),
            prompt: TASK,
            stopWhen: stepCountIs(5),
          });
          expect(result.steps.map((s) => s.toolCalls.map((c) => c.toolName))).toEqual([
            ['save_note'],
            ['save_note'],
            [],
          ]);
          return result.text;
        } finally {
          await mcp.close();
        }
      });
      expectModelRetry(run);
      expect(run.output).toBe(ANSWER);
    },
  );
});

describe("the OpenAI Agents SDK's MCPServerStreamableHttp", () => {
  it('an Agent with the MCP server retries the BUSY save through the model', async () => {
    setDefaultOpenAIKey('test-key');
    understudy.model.use(modelRetries());
    const run = await understudy.run(async () => {
      const server = new MCPServerStreamableHttp({ url: NOTES, name: 'notes' });
      await server.connect();
      try {
        const agent = new Agent({
          name: 'notes',
          instructions: 'You keep notes.',
          mcpServers: [server],
          model: 'gpt-4o',
        });
        const result = await runAgent(agent, TASK);
        return result.finalOutput;
      } finally {
        await server.close();
      }
    });
    expectModelRetry(run);
    expect(run.modelCalls.map((c) => c.protocol)).toEqual([
      'openai.responses',
      'openai.responses',
      'openai.responses',
    ]);
  });
});

describe('@langchain/mcp-adapters with a LangGraph ReAct agent', () => {
  it('createReactAgent on the MCP tools retries the BUSY save through the model', async () => {
    understudy.model.use(modelRetries());
    const run = await understudy.run(async () => {
      const mcp = new MultiServerMCPClient({ mcpServers: { notes: { transport: 'http', url: NOTES } } });
      try {
        const agent = createReactAgent({
          llm: new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test-key', maxRetries: 0 }),
          tools: await mcp.getTools(),
        });
        const state = await agent.invoke({ messages: [{ role: 'user', content: TASK }] });
        return state.messages.at(-1)?.content;
      } finally {
        await mcp.close();
      }
    });
    expectModelRetry(run);
  });
});
