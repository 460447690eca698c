/**
 * A small coding agent on the official OpenAI SDK: a plain tool loop over file tools, as
 * teams write it. Nothing in here knows about tests.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { fileTools, TOOL_DEFINITIONS, type ToolName } from './tools';

export const MODEL = 'gpt-4o-mini';
const MAX_STEPS = 10;

export const SYSTEM_PROMPT =
  'You are a careful coding agent. Find the code first, read it, then make the smallest edit that fixes the task. Do not touch files the task does not need.';

/** Works on the task in the repository; returns the model's last message. */
export async function runCodingAgent(task: string, client = new OpenAI()): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: task },
  ];
  for (let step = 0; step < MAX_STEPS; step++) {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages,
      tools: TOOL_DEFINITIONS,
    });
    const message = completion.choices[0].message;
    messages.push(message);
    const calls = (message.tool_calls ?? []).filter(
      (c): c is ChatCompletionMessageFunctionToolCall => c.type === 'function',
    );
    if (calls.length === 0) return message.content ?? '';
    for (const call of calls) {
      let content: unknown;
      try {
        content = await fileTools[call.function.name as ToolName](JSON.parse(call.function.arguments));
      } catch (error) {
        // The model decides what to do next; it only needs to know what went wrong.
        content = { error: error instanceof Error ? error.message : String(error) };
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) });
    }
  }
  throw new Error(`the coding agent did not finish within ${MAX_STEPS} steps`);
}
