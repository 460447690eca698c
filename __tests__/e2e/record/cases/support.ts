/**
 * A small support agent on the official OpenAI SDK, for the cassette tests: what it sends is
 * set by CASE_* variables (model, tool name, tool result, an earlier message), so a replay can
 * change one thing the recording was made with.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Run } from 'jest-understudy';
import OpenAI from 'openai';

const UP = () => process.env.UPSTREAM_URL ?? 'http://127.0.0.1:9';

export async function supportAgent(question: string): Promise<string> {
  const client = new OpenAI({ baseURL: `${UP()}/openai/v1`, maxRetries: 0 });
  const model = process.env.CASE_MODEL ?? 'gpt-4o-mini';
  const toolName = process.env.CASE_TOOL ?? 'lookup_order';
  const status = process.env.CASE_STATUS ?? 'refunded';
  const name = process.env.CASE_NAME ?? 'Sam';
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: toolName,
        description: 'Order status',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      },
    },
  ];
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a support agent. Look orders up before answering.' },
    { role: 'user', content: `My name is ${name}.` },
    { role: 'assistant', content: 'Hello! How can I help?' },
    { role: 'user', content: question },
  ];
  for (let step = 0; step < 4; step++) {
    const message = (await client.chat.completions.create({ model, messages, tools, temperature: 0 }))
      .choices[0].message;
    messages.push(message as OpenAI.ChatCompletionMessageParam);
    if (!message.tool_calls?.length) return message.content ?? '';
    for (const call of message.tool_calls)
      if (call.type === 'function') {
        const { orderId } = JSON.parse(call.function.arguments) as { orderId: string };
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ orderId, status }) });
      }
  }
  throw new Error('too many steps');
}

/** Saves what a run did, for the parent test to compare the recording with its replay. */
export function save(name: string, run: Run): void {
  const dir = join(process.env.RUN_OUT ?? '/tmp', process.env.CASE_PHASE ?? 'unknown');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.json`),
    JSON.stringify({
      output: run.output,
      terminalState: run.terminalState,
      toolCalls: run.toolCalls.map((t) => [t.name, t.id, t.arguments, t.result]),
      modelCalls: run.modelCalls.map((c) => ({
        error: c.error?.status,
        content: c.response?.content ?? null,
      })),
    }),
  );
}
