/**
 * A records agent on the official OpenAI SDK (Chat Completions). Its tools are an imported
 * client module (`saveRecord`) and two HTTP APIs (the records API to read, the activity API
 * to log). It retries a save the store calls retryable, reusing the save's request id, so a
 * retry can never save twice. Nothing in here knows about tests.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { RecordStoreError, saveRecord } from './records-client';

export const MODEL = 'gpt-4o-mini';
export const RECORDS_API = 'https://records.example.test/api';
export const ACTIVITY_API = 'https://activity.example.test/v1';
export const SYSTEM_PROMPT =
  "You keep the team's records. Read a record before changing it, and log every change.";

export interface RecordsAgentOptions {
  client?: OpenAI;
  /** Attempts per save when the store answers with a retryable error (1 = no retry). */
  saveAttempts?: number;
}

const object = (
  properties: Record<string, { type: string }>,
): ChatCompletionFunctionTool['function']['parameters'] => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

export const TOOLS: ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_record',
      description: 'Read a record.',
      parameters: object({ id: { type: 'string' } }),
    },
  },
  {
    type: 'function',
    function: {
      name: 'save_record',
      description: 'Save a record.',
      parameters: object({ id: { type: 'string' }, text: { type: 'string' } }),
    },
  },
  {
    type: 'function',
    function: {
      name: 'log_activity',
      description: 'Log a change to the activity feed.',
      parameters: object({ recordId: { type: 'string' }, action: { type: 'string' } }),
    },
  },
];

async function http(url: string, init?: RequestInit): Promise<unknown> {
  const response = await fetch(url, init);
  const body = (await response.json()) as { error?: { message: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body;
}

async function withRetries<T>(attempts: number, action: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      if (!(error instanceof RecordStoreError && error.retryable) || attempt >= attempts) throw error;
    }
  }
}

async function runTool(call: ChatCompletionMessageFunctionToolCall, saveAttempts: number): Promise<unknown> {
  const args = JSON.parse(call.function.arguments || '{}');
  switch (call.function.name) {
    case 'get_record':
      return http(`${RECORDS_API}/records/${encodeURIComponent(args.id)}`);
    case 'save_record': {
      // One logical save, one request id: retries (ours, or the model asking again) never save twice.
      const requestId = `save:${args.id}:${args.text}`;
      return withRetries(saveAttempts, () => saveRecord(args.id, args.text, { requestId }));
    }
    case 'log_activity':
      return http(`${ACTIVITY_API}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(args),
      });
    default:
      throw new Error(`unknown tool ${call.function.name}`);
  }
}

/** Carries out the task; returns the model's last answer. */
export async function runRecordsAgent(task: string, options: RecordsAgentOptions = {}): Promise<string> {
  const { client = new OpenAI({ maxRetries: 0 }), saveAttempts = 3 } = options;
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: task },
  ];
  for (let step = 0; step < 10; step++) {
    const completion = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS });
    const message = completion.choices[0].message;
    messages.push(message);
    const calls = (message.tool_calls ?? []).filter(
      (c): c is ChatCompletionMessageFunctionToolCall => c.type === 'function',
    );
    if (calls.length === 0) return message.content ?? '';
    for (const call of calls) {
      let content: unknown;
      try {
        content = await runTool(call, saveAttempts);
      } catch (error) {
        content = { error: error instanceof Error ? error.message : String(error) };
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) });
    }
  }
  throw new Error('the records agent did not finish within 10 steps');
}
