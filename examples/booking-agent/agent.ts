/**
 * A support agent that books callbacks, on the official OpenAI SDK (Chat Completions). Its two
 * tools call the team's calendar over HTTP; a booking the calendar calls retryable (503 BUSY)
 * is sent again by the tool itself, so the model sees one booking. Nothing in here knows
 * about tests.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

export const MODEL = 'gpt-4o-mini';
export const CALENDAR_API = 'https://calendar.example.test/v1';
export const SYSTEM_PROMPT =
  'You book support callbacks. Find a free slot before booking one, and confirm the time to the customer.';

export const TOOLS: ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'find_free_slots',
      description: 'List the free callback slots of a day (YYYY-MM-DD).',
      parameters: {
        type: 'object',
        properties: { day: { type: 'string' } },
        required: ['day'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'book_callback',
      description: 'Book a free slot for a callback to the customer.',
      parameters: {
        type: 'object',
        properties: { slotId: { type: 'string' }, email: { type: 'string' }, topic: { type: 'string' } },
        required: ['slotId', 'email', 'topic'],
        additionalProperties: false,
      },
    },
  },
];

export interface BookingAgentOptions {
  client?: OpenAI;
  /** Attempts per booking when the calendar answers with a retryable error (1 = no retry). */
  bookingAttempts?: number;
}

class CalendarError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

async function calendar(path: string, init?: RequestInit): Promise<unknown> {
  const response = await fetch(`${CALENDAR_API}${path}`, init);
  const body = (await response.json()) as { error?: { message: string; retryable?: boolean } };
  if (!response.ok)
    throw new CalendarError(body.error?.message ?? `HTTP ${response.status}`, body.error?.retryable === true);
  return body;
}

async function book(args: unknown, attempts: number): Promise<unknown> {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await calendar('/events', init);
    } catch (error) {
      if (!(error instanceof CalendarError && error.retryable) || attempt >= attempts) throw error;
    }
  }
}

async function runTool(
  call: ChatCompletionMessageFunctionToolCall,
  bookingAttempts: number,
): Promise<unknown> {
  const args = JSON.parse(call.function.arguments || '{}');
  switch (call.function.name) {
    case 'find_free_slots':
      return calendar(`/slots?day=${encodeURIComponent(args.day)}&free=true`);
    case 'book_callback':
      return book(args, bookingAttempts);
    default:
      throw new Error(`unknown tool ${call.function.name}`);
  }
}

/** Books the callback the customer asks for; returns the model's last answer. */
export async function runBookingAgent(request: string, options: BookingAgentOptions = {}): Promise<string> {
  const { client = new OpenAI({ maxRetries: 0 }), bookingAttempts = 3 } = options;
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: request },
  ];
  for (let step = 0; step < 8; step++) {
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
        content = await runTool(call, bookingAttempts);
      } catch (error) {
        // The model decides what to tell the customer; it just needs to know what went wrong.
        content = { error: error instanceof Error ? error.message : String(error) };
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) });
    }
  }
  throw new Error('the booking agent did not finish within 8 steps');
}
