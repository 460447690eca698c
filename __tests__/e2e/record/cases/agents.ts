/**
 * Small real agent loops on each provider's official SDK, pointed at the fake upstream's
 * paths (the child Jest also lists them as provider base URLs, so they are intercepted).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { type Content, GoogleGenAI, type Part } from '@google/genai';
import type { Run } from 'jest-understudy';
import OpenAI from 'openai';

const UP = () => process.env.UPSTREAM_URL ?? 'http://127.0.0.1:9';
export const SYSTEM = () =>
  `You are terse. Look orders up before answering.${process.env.PROMPT_SUFFIX ?? ''}`;

const lookup = (args: string) => {
  const { orderId } = JSON.parse(args) as { orderId: string };
  return JSON.stringify({ orderId, status: orderId.startsWith('A') ? 'shipped' : 'packing' });
};

const parameters = {
  type: 'object' as const,
  properties: { orderId: { type: 'string' } },
  required: ['orderId'],
};

export async function chatAgent(question: string, stream: boolean): Promise<string> {
  const client = new OpenAI({ baseURL: `${UP()}/openai/v1`, maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM() },
    { role: 'user', content: question },
  ];
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'lookup_order', description: 'Order status', parameters } },
  ];
  for (let step = 0; step < 4; step++) {
    const message = stream
      ? (
          await client.chat.completions
            .stream({ model: 'gpt-4o', messages, tools, stream_options: { include_usage: true } })
            .finalChatCompletion()
        ).choices[0].message
      : (await client.chat.completions.create({ model: 'gpt-4o', messages, tools })).choices[0].message;
    messages.push(message as OpenAI.ChatCompletionMessageParam);
    if (!message.tool_calls?.length) return message.content ?? '';
    for (const call of message.tool_calls)
      if (call.type === 'function')
        messages.push({ role: 'tool', tool_call_id: call.id, content: lookup(call.function.arguments) });
  }
  throw new Error('too many steps');
}

/** The Responses API, chaining turns with previous_response_id (the provider keeps the thread). */
export async function responsesAgent(question: string, stream: boolean): Promise<string> {
  const client = new OpenAI({ baseURL: `${UP()}/openai/v1`, maxRetries: 0 });
  const tools: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'lookup_order', description: 'Order status', parameters, strict: false },
  ];
  let input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: question }];
  let previous: string | undefined;
  for (let step = 0; step < 4; step++) {
    const body = {
      model: 'gpt-4o',
      instructions: SYSTEM(),
      input,
      tools,
      ...(previous ? { previous_response_id: previous } : {}),
    };
    const response = stream
      ? await client.responses.stream(body).finalResponse()
      : await client.responses.create(body);
    previous = response.id;
    const calls = (response.output as OpenAI.Responses.ResponseOutputItem[]).filter(
      (o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call',
    );
    if (calls.length === 0) return response.output_text;
    input = calls.map((c) => ({
      type: 'function_call_output' as const,
      call_id: c.call_id,
      output: lookup(c.arguments),
    }));
  }
  throw new Error('too many steps');
}

export async function anthropicAgent(question: string, stream: boolean): Promise<string> {
  const client = new Anthropic({ baseURL: `${UP()}/anthropic`, maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }];
  const tools: Anthropic.Tool[] = [
    { name: 'lookup_order', description: 'Order status', input_schema: parameters },
  ];
  for (let step = 0; step < 4; step++) {
    const body = { model: 'claude-sonnet-4-6', max_tokens: 512, system: SYSTEM(), messages, tools };
    const message = stream
      ? await client.messages.stream(body).finalMessage()
      : await client.messages.create(body);
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    messages.push({
      role: 'user',
      content: uses.map((u) => ({
        type: 'tool_result' as const,
        tool_use_id: u.id,
        content: lookup(JSON.stringify(u.input)),
      })),
    });
  }
  throw new Error('too many steps');
}

export async function geminiAgent(question: string, stream: boolean): Promise<string> {
  const ai = new GoogleGenAI({
    apiKey: process.env.GEMINI_API_KEY,
    httpOptions: { baseUrl: `${UP()}/gemini` },
  });
  const config = {
    systemInstruction: SYSTEM(),
    tools: [
      {
        functionDeclarations: [
          { name: 'lookup_order', description: 'Order status', parametersJsonSchema: parameters },
        ],
      },
    ],
  };
  const contents: Content[] = [{ role: 'user', parts: [{ text: question }] }];
  for (let step = 0; step < 4; step++) {
    const parts: Part[] = [];
    if (stream) {
      for await (const chunk of await ai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents,
        config,
      }))
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    } else {
      const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
      parts.push(...(response.candidates?.[0]?.content?.parts ?? []));
    }
    contents.push({ role: 'model', parts });
    const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall!);
    if (calls.length === 0) return parts.map((p) => p.text ?? '').join('');
    contents.push({
      role: 'user',
      parts: calls.map((c) => ({
        functionResponse: { id: c.id, name: c.name, response: { output: lookup(JSON.stringify(c.args)) } },
      })),
    });
  }
  throw new Error('too many steps');
}

/** What must be identical between the recording run and its replay. */
export function summaryOf(run: Run) {
  return {
    output: run.output,
    finalMessage: run.finalMessage,
    terminalState: run.terminalState,
    toolCalls: run.toolCalls.map((t) => ({
      id: t.id,
      name: t.name,
      arguments: t.arguments,
      result: t.result,
    })),
    modelCalls: run.modelCalls.map((c) => ({
      protocol: c.protocol,
      streamed: c.streamed,
      unmatched: c.unmatched,
      error: c.error,
      response: c.response,
    })),
  };
}

/** Saves a run's summary for the parent test to compare across phases. */
export function save(name: string, run: Run): void {
  const dir = join(process.env.RUN_OUT ?? '/tmp', process.env.CASE_PHASE ?? 'unknown');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.json`),
    JSON.stringify(summaryOf(run), null, 2),
  );
}
