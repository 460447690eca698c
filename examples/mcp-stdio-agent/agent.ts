/**
 * An agent configured the way desktop and coding agents are: its MCP servers are commands it
 * spawns (`{ command, args, env }`), their tools offered to the model in an OpenAI Chat tool
 * loop. Nothing in here knows about tests.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

export interface McpServerConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

export const MODEL = 'gpt-4o-mini';
const MAX_STEPS = 8;

/** Starts every configured server, answers `question` with their tools, and stops them. */
export async function runMcpAgent(
  question: string,
  servers: Record<string, McpServerConfig>,
  client: OpenAI = new OpenAI(),
): Promise<string> {
  const connected: Array<{ name: string; mcp: Client }> = [];
  try {
    for (const [name, config] of Object.entries(servers)) {
      const mcp = new Client({ name: 'mcp-stdio-agent', version: '1.0.0' });
      await mcp.connect(new StdioClientTransport({ ...config, stderr: 'inherit' }));
      connected.push({ name, mcp });
    }
    const owner = new Map<string, Client>();
    const tools: ChatCompletionTool[] = [];
    for (const { mcp } of connected) {
      for (const tool of (await mcp.listTools()).tools) {
        owner.set(tool.name, mcp);
        tools.push({
          type: 'function',
          function: {
            name: tool.name,
            ...(tool.description && { description: tool.description }),
            parameters: tool.inputSchema as Record<string, unknown>,
          },
        });
      }
    }
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
    for (let step = 0; step < MAX_STEPS; step++) {
      const completion = await client.chat.completions.create({ model: MODEL, messages, tools });
      const message = completion.choices[0].message;
      messages.push(message);
      const calls = (message.tool_calls ?? []).filter((c) => c.type === 'function');
      if (calls.length === 0) return message.content ?? '';
      for (const call of calls) {
        const mcp = owner.get(call.function.name);
        const result = mcp
          ? await mcp.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments) })
          : { isError: true, content: [{ type: 'text', text: `no tool ${call.function.name}` }] };
        const text = (result.content as Array<{ type: string; text?: string }>)
          .map((c) => c.text ?? '')
          .join('\n');
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: result.isError ? `ERROR ${text}` : text,
        });
      }
    }
    throw new Error(`no answer after ${MAX_STEPS} steps`);
  } finally {
    await Promise.allSettled(connected.map(({ mcp }) => mcp.close()));
  }
}
