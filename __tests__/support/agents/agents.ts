/**
 * One small agent per real client, all doing the same job: ask about Paris, run the tools the
 * model calls (`get_weather({ city })`, `get_time()` with no arguments), send the results
 * back, return the final text. The dialect, stream-error and refusal suites run them.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, Message, ToolConfiguration } from '@aws-sdk/client-bedrock-runtime';
import { type Content, GoogleGenAI, type Part } from '@google/genai';
import { expect } from '@jest/globals';
import type { AIMessage, AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import { generateText, jsonSchema, type LanguageModel, stepCountIs, streamText, tool } from 'ai';
import type { Fixture, Run } from 'jest-understudy';
import OpenAI from 'openai';

export const QUESTION = 'Weather and time in Paris?';
export const FINAL = 'Sunny, 18°C; it is 09:30.';

/** Two parallel calls, one of them without arguments, then the answer. */
export const parallelFixtures: Fixture[] = [
  {
    match: { userMessage: 'Paris', hasToolResult: false },
    response: {
      chunkSize: 6,
      content: 'Checking both.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: {} },
      ],
    },
  },
  { match: { userMessage: 'Paris', hasToolResult: true }, response: { content: FINAL, chunkSize: 6 } },
];

/** The run every client's agent must make, in any dialect: both tools with their arguments, all answered, the answer. */
export function expectParisRun(run: Run): void {
  expect(run).toHaveTerminalState('succeeded');
  expect(run.output).toBe(FINAL);
  expect(run).toHaveCalledToolSequence(
    [
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_time', args: {} },
    ],
    { args: 'exact' },
  );
  expect(run.toolCalls.every((c) => c.answered)).toBe(true);
}

const run = (name: string, args: Record<string, unknown>): Record<string, string | number> =>
  name === 'get_weather' ? { city: String(args.city), tempC: 18 } : { time: '09:30' };

const objectSchema = (properties: Record<string, { type: 'string' | 'number' }>) => ({
  type: 'object' as const,
  properties,
});

export type Agent = (stream: boolean) => Promise<string | null | undefined>;

export const openaiChat: Agent = async (stream) => {
  const client = new OpenAI({ maxRetries: 0 });
  const tools: OpenAI.Chat.ChatCompletionTool[] = [
    {
      type: 'function',
      function: { name: 'get_weather', parameters: objectSchema({ city: { type: 'string' } }) },
    },
    { type: 'function', function: { name: 'get_time', parameters: objectSchema({}) } },
  ];
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
  for (let step = 0; step < 4; step++) {
    const params = { model: 'gpt-4o', messages, tools };
    const completion = stream
      ? await client.chat.completions.stream(params).finalChatCompletion()
      : await client.chat.completions.create(params);
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      // An agent that reads `""` as no arguments, as the SDK's own helpers do.
      const args = JSON.parse(call.function.arguments || '{}');
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify(run(call.function.name, args)),
      });
    }
  }
  throw new Error('too many steps');
};

export const openaiResponses: Agent = async (stream) => {
  const client = new OpenAI({ maxRetries: 0 });
  const tools: OpenAI.Responses.Tool[] = [
    {
      type: 'function',
      name: 'get_weather',
      parameters: objectSchema({ city: { type: 'string' } }),
      strict: false,
    },
    { type: 'function', name: 'get_time', parameters: objectSchema({}), strict: false },
  ];
  let input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: QUESTION }];
  let previous: string | undefined;
  for (let step = 0; step < 4; step++) {
    const params = { model: 'gpt-4o', input, tools, ...(previous ? { previous_response_id: previous } : {}) };
    const response = stream
      ? await client.responses.stream(params).finalResponse()
      : await client.responses.create(params);
    previous = response.id;
    const calls = response.output.flatMap((o) => (o.type === 'function_call' ? [o] : []));
    if (calls.length === 0) return response.output_text;
    input = calls.map((c) => ({
      type: 'function_call_output' as const,
      call_id: c.call_id,
      output: JSON.stringify(run(c.name, JSON.parse(c.arguments || '{}'))),
    }));
  }
  throw new Error('too many steps');
};

export const anthropic: Agent = async (stream) => {
  const client = new Anthropic({ maxRetries: 0 });
  const tools: Anthropic.Tool[] = [
    { name: 'get_weather', input_schema: objectSchema({ city: { type: 'string' } }) },
    { name: 'get_time', input_schema: objectSchema({}) },
  ];
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: QUESTION }];
  for (let step = 0; step < 4; step++) {
    const params = { model: 'claude-sonnet-4-6', max_tokens: 1024, messages, tools };
    const reply = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params);
    messages.push({ role: 'assistant', content: reply.content });
    const uses = reply.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0)
      return reply.content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');
    messages.push({
      role: 'user',
      content: uses.map((u) => ({
        type: 'tool_result' as const,
        tool_use_id: u.id,
        content: JSON.stringify(run(u.name, u.input as Record<string, unknown>)),
      })),
    });
  }
  throw new Error('too many steps');
};

export const gemini: Agent = async (stream) => {
  const ai = new GoogleGenAI({ apiKey: 'x' });
  const config = {
    tools: [
      {
        functionDeclarations: [
          { name: 'get_weather', parametersJsonSchema: objectSchema({ city: { type: 'string' } }) },
          { name: 'get_time', parametersJsonSchema: objectSchema({}) },
        ],
      },
    ],
  };
  const contents: Content[] = [{ role: 'user', parts: [{ text: QUESTION }] }];
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
      const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
      parts.push(...(r.candidates?.[0]?.content?.parts ?? []));
    }
    contents.push({ role: 'model', parts });
    const calls = parts.filter((p) => p.functionCall);
    if (calls.length === 0)
      return parts
        .filter((p) => p.text && !p.thought)
        .map((p) => p.text)
        .join('');
    contents.push({
      role: 'user',
      parts: calls.map((p) => ({
        functionResponse: {
          id: p.functionCall?.id,
          name: p.functionCall?.name,
          response: { output: run(String(p.functionCall?.name), p.functionCall?.args ?? {}) },
        },
      })),
    });
  }
  throw new Error('too many steps');
};

const BEDROCK_MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

// The heavier clients load when a suite runs them: each suite file pays only for what it uses.
const aws = (): typeof import('@aws-sdk/client-bedrock-runtime') =>
  require('@aws-sdk/client-bedrock-runtime');
const langchain = () => ({
  ...(require('@langchain/core/messages') as typeof import('@langchain/core/messages')),
  ...(require('@langchain/openai') as typeof import('@langchain/openai')),
});

export const bedrock: Agent = async (stream) => {
  const { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } = aws();
  const client = new BedrockRuntimeClient({ maxAttempts: 1 });
  const toolConfig: ToolConfiguration = {
    tools: [
      {
        toolSpec: {
          name: 'get_weather',
          inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      },
      { toolSpec: { name: 'get_time', inputSchema: { json: { type: 'object', properties: {} } } } },
    ],
  };
  const messages: Message[] = [{ role: 'user', content: [{ text: QUESTION }] }];
  for (let step = 0; step < 4; step++) {
    let content: ContentBlock[] = [];
    if (stream) {
      const out = await client.send(
        new ConverseStreamCommand({ modelId: BEDROCK_MODEL, messages, toolConfig }),
      );
      const blocks: Array<{ text?: string; toolUseId?: string; name?: string; input?: string }> = [];
      for await (const e of out.stream ?? []) {
        const start = e.contentBlockStart;
        const delta = e.contentBlockDelta;
        if (start?.start?.toolUse)
          blocks[start.contentBlockIndex ?? 0] = { ...start.start.toolUse, input: '' };
        else if (delta?.delta?.text !== undefined) {
          const at = delta.contentBlockIndex ?? 0;
          blocks[at] = { text: (blocks[at]?.text ?? '') + delta.delta.text };
        } else if (delta?.delta?.toolUse)
          blocks[delta.contentBlockIndex ?? 0].input += delta.delta.toolUse.input ?? '';
      }
      content = blocks
        .filter(Boolean)
        .map((b) =>
          b.name
            ? { toolUse: { toolUseId: b.toolUseId, name: b.name, input: JSON.parse(b.input || '{}') } }
            : { text: b.text ?? '' },
        );
    } else {
      const out = await client.send(new ConverseCommand({ modelId: BEDROCK_MODEL, messages, toolConfig }));
      content = out.output?.message?.content ?? [];
    }
    messages.push({ role: 'assistant', content });
    const uses = content.filter((b) => b.toolUse);
    if (uses.length === 0) return content.map((b) => b.text ?? '').join('');
    messages.push({
      role: 'user',
      content: uses.map(
        (b): ContentBlock => ({
          toolResult: {
            toolUseId: b.toolUse?.toolUseId,
            content: [
              { json: run(String(b.toolUse?.name), (b.toolUse?.input ?? {}) as Record<string, unknown>) },
            ],
          },
        }),
      ),
    });
  }
  throw new Error('too many steps');
};

/** The tool calls LangChain could not read (it keeps them apart, in `invalid_tool_calls`). */
export const langchainInvalid: unknown[] = [];

export const langchainOpenAI: Agent = async (stream) => {
  const { ChatOpenAI, HumanMessage, ToolMessage } = langchain();
  const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'x', maxRetries: 0, streamUsage: true }).bindTools([
    {
      type: 'function',
      function: { name: 'get_weather', parameters: objectSchema({ city: { type: 'string' } }) },
    },
    { type: 'function', function: { name: 'get_time', parameters: objectSchema({}) } },
  ]);
  const messages: BaseMessage[] = [new HumanMessage(QUESTION)];
  for (let step = 0; step < 4; step++) {
    let reply: AIMessage | AIMessageChunk;
    if (stream) {
      let acc: AIMessageChunk | undefined;
      for await (const chunk of await model.stream(messages)) acc = acc ? acc.concat(chunk) : chunk;
      if (!acc) throw new Error('empty stream');
      reply = acc;
    } else reply = await model.invoke(messages);
    messages.push(reply);
    langchainInvalid.push(...(reply.invalid_tool_calls ?? []));
    if (!reply.tool_calls?.length) return reply.text;
    for (const call of reply.tool_calls)
      messages.push(
        new ToolMessage({
          tool_call_id: String(call.id),
          content: JSON.stringify(run(call.name, call.args)),
        }),
      );
  }
  throw new Error('too many steps');
};

const aiTools = {
  get_weather: tool({
    inputSchema: jsonSchema<{ city: string }>(objectSchema({ city: { type: 'string' } })),
    execute: async (args) => run('get_weather', args),
  }),
  get_time: tool({
    inputSchema: jsonSchema<Record<string, never>>(objectSchema({})),
    execute: async (args) => run('get_time', args),
  }),
};

/** An AI SDK agent (generateText / streamText with the tools) on any provider's model. */
export function aiSdk(model: () => LanguageModel): Agent {
  return async (stream) => {
    const params = { model: model(), tools: aiTools, stopWhen: stepCountIs(4), prompt: QUESTION };
    if (!stream) return (await generateText(params)).text;
    const result = streamText(params);
    return await result.text;
  };
}

export const aiSdkModels = {
  openaiChat: () => createOpenAI({ apiKey: 'x' }).chat('gpt-4o'),
  openaiResponses: () => createOpenAI({ apiKey: 'x' })('gpt-4o'),
  anthropic: () => createAnthropic({ apiKey: 'x' })('claude-sonnet-4-6'),
  google: () => createGoogleGenerativeAI({ apiKey: 'x' })('gemini-2.5-flash'),
  bedrock: () =>
    (require('@ai-sdk/amazon-bedrock') as typeof import('@ai-sdk/amazon-bedrock')).createAmazonBedrock()(
      BEDROCK_MODEL,
    ),
  /** An OpenAI-compatible gateway (OpenRouter here), as DeepSeek, vLLM or LiteLLM are used. */
  compatible: () =>
    (
      require('@ai-sdk/openai-compatible') as typeof import('@ai-sdk/openai-compatible')
    ).createOpenAICompatible({ name: 'openrouter', baseURL: 'https://openrouter.ai/api/v1', apiKey: 'x' })(
      'deepseek/deepseek-r1',
    ),
};
