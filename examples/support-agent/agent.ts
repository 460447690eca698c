/**
 * A small customer-support agent on the official OpenAI SDK: a plain tool loop, as teams
 * write it. Nothing in here knows about tests; jest-understudy answers its HTTP requests.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { executeTool, OrderStore, TOOL_DEFINITIONS } from './tools';

export const MODEL = 'gpt-4o-mini';
export const MAX_STEPS = 8;

export const SYSTEM_PROMPT = [
  'You are the support agent of Acme Outfitters.',
  'Always look up an order before acting on it.',
  'Refund only what the customer paid, never twice, and email the customer after a refund.',
  'Answer in one or two short sentences.',
].join(' ');

export interface SupportAgentOptions {
  /** Stream the model's replies (same result, delivered as server-sent events). */
  stream?: boolean;
  client?: OpenAI;
  store?: OrderStore;
}

const defaultStore = new OrderStore();

/** Answers a customer's question, using the order tools as needed; returns the final reply. */
export async function runSupportAgent(question: string, options: SupportAgentOptions = {}): Promise<string> {
  const { stream = false, client = new OpenAI(), store = defaultStore } = options;
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: question },
  ];

  for (let step = 0; step < MAX_STEPS; step++) {
    const message = await complete(client, messages, stream);
    messages.push(message);

    const toolCalls = (message.tool_calls ?? []).filter(
      (call): call is ChatCompletionMessageFunctionToolCall => call.type === 'function',
    );
    if (toolCalls.length === 0) return message.content ?? '';

    // The model may ask for several tools at once: run them concurrently, answer in order.
    messages.push(...(await Promise.all(toolCalls.map((call) => runTool(store, call)))));
  }
  throw new Error(`the support agent did not finish within ${MAX_STEPS} steps`);
}

async function complete(
  client: OpenAI,
  messages: ChatCompletionMessageParam[],
  stream: boolean,
): Promise<ChatCompletionMessage> {
  const params = { model: MODEL, messages, tools: TOOL_DEFINITIONS };
  const completion = stream
    ? await client.chat.completions.stream(params).finalChatCompletion()
    : await client.chat.completions.create(params);
  return completion.choices[0].message;
}

async function runTool(
  store: OrderStore,
  call: ChatCompletionMessageFunctionToolCall,
): Promise<ChatCompletionToolMessageParam> {
  let content: unknown;
  try {
    const args = JSON.parse(call.function.arguments || '{}');
    content = await executeTool(store, call.function.name, args);
  } catch (error) {
    // The model decides what to tell the customer; it just needs to know what went wrong.
    content = { error: error instanceof Error ? error.message : String(error) };
  }
  return { role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) };
}
