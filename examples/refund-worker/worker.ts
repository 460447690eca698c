/**
 * A refund worker built to survive a crash: it checkpoints its conversation after every model
 * step (before it runs the tools the model asked for), starts again from the last checkpoint,
 * and gives each refund an idempotency key made of the thread and the tool call's id, so a
 * tool call run again after a crash is the same logical request, not a new refund.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

export interface Order {
  id: string;
  item: string;
  amountPaid: number;
}

/** The payments service's client (in production an HTTP client; in the tests the world's). */
export interface Payments {
  getOrder(orderId: string): Promise<Order>;
  refund(orderId: string, amount: number, options?: { idempotencyKey?: string }): Promise<{ id: string }>;
}

/** Where the worker keeps its progress between processes (LangGraph calls this a checkpointer). */
export interface Checkpoints {
  load(thread: string): ChatCompletionMessageParam[] | undefined;
  save(thread: string, messages: ChatCompletionMessageParam[]): void;
}

/** Checkpoints kept in memory: enough for one test, as LangGraph's MemorySaver. */
export class MemoryCheckpoints implements Checkpoints {
  private readonly threads = new Map<string, ChatCompletionMessageParam[]>();
  load(thread: string) {
    const saved = this.threads.get(thread);
    return saved && structuredClone(saved);
  }
  save(thread: string, messages: ChatCompletionMessageParam[]) {
    this.threads.set(thread, structuredClone(messages));
  }
}

export interface WorkerOptions {
  thread: string;
  payments: Payments;
  checkpoints: Checkpoints;
  /** Send an idempotency key with each refund (default true). */
  idempotencyKeys?: boolean;
  client?: OpenAI;
}

const TOOLS: ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'issue_refund',
      parameters: {
        type: 'object',
        properties: { orderId: { type: 'string' }, amount: { type: 'integer' } },
        required: ['orderId', 'amount'],
      },
    },
  },
];

/** Handles a refund request, from its last checkpoint if it has one; returns the final reply. */
export async function runRefundWorker(request: string, options: WorkerOptions): Promise<string> {
  const { thread, payments, checkpoints, idempotencyKeys = true, client = new OpenAI() } = options;
  const messages = checkpoints.load(thread) ?? [{ role: 'user', content: request }];
  for (let step = 0; step < 6; step++) {
    // Tool calls the last checkpoint holds but whose results it does not: run them (again).
    const last = messages.at(-1);
    if (last?.role === 'assistant' && last.tool_calls?.length) {
      for (const call of last.tool_calls as ChatCompletionMessageFunctionToolCall[]) {
        const args = JSON.parse(call.function.arguments);
        const key = idempotencyKeys ? { idempotencyKey: `${thread}:${call.id}` } : {};
        const result =
          call.function.name === 'lookup_order'
            ? await payments.getOrder(args.orderId)
            : await payments.refund(args.orderId, args.amount, key);
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
      }
      checkpoints.save(thread, messages);
    }
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS });
    const message = completion.choices[0].message;
    messages.push(message);
    checkpoints.save(thread, messages);
    if (!message.tool_calls?.length) return message.content ?? '';
  }
  throw new Error('the refund worker did not finish in 6 steps');
}
