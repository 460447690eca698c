/**
 * No false alarms: with request contracts on (the default), the official SDKs and the
 * frameworks run their normal multi-turn, parallel-tool and reasoning paths without tripping
 * a rule, and the round trips the rules check really happen (the reasoning tokens the mock
 * issued come back on the next request).
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import {
  type CallableTool,
  type Content,
  type FunctionCall,
  type FunctionDeclaration,
  GoogleGenAI,
  type Part,
} from '@google/genai';
import { afterEach, describe, expect, it } from '@jest/globals';
import { ChatAnthropic } from '@langchain/anthropic';
import {
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  type ToolMessage,
} from '@langchain/core/messages';
import { tool as lcTool } from '@langchain/core/tools';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { type Fixture, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';

const impl: Record<string, (args: any) => unknown> = {
  get_weather: ({ city }) => ({ city, tempC: city === 'Paris' ? 18 : 25 }),
  get_time: ({ tz }) => ({ tz, time: '09:30' }),
};

/** The two tools for the AI SDK, on every provider. */
const aiTools = {
  get_weather: tool({
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }),
    execute: async (a) => impl.get_weather(a),
  }),
  get_time: tool({
    inputSchema: jsonSchema<{ tz: string }>({ type: 'object', properties: { tz: { type: 'string' } } }),
    execute: async (a) => impl.get_time(a),
  }),
};

/** Two turns of one conversation: a parallel tool loop, then a follow-up question. */
function conversation(reasoning?: string): Fixture[] {
  return [
    {
      match: { userMessage: 'Paris', hasToolResult: false },
      response: {
        chunkSize: 5,
        ...(reasoning ? { reasoning } : {}),
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
        ],
      },
    },
    {
      match: { userMessage: 'Paris', hasToolResult: true },
      response: { chunkSize: 5, content: 'It is 18°C in Paris at 09:30.' },
    },
    { match: { userMessage: 'tomorrow' }, response: { content: 'Rain tomorrow.' } },
  ];
}

afterEach(() => {
  // Every request of the test passed every contract.
  expect(understudy.model.calls.filter((c) => c.contract)).toEqual([]);
  expect(understudy.model.calls.every((c) => !c.error)).toBe(true);
});

describe('OpenAI Chat Completions (openai)', () => {
  const tools: ChatCompletionTool[] = ['get_weather', 'get_time'].map((name) => ({
    type: 'function',
    function: {
      name,
      parameters: { type: 'object', properties: { city: { type: 'string' }, tz: { type: 'string' } } },
    },
  }));

  for (const stream of [false, true])
    it(`a parallel tool loop, then a follow-up turn (${stream ? 'streamed' : 'plain'})`, async () => {
      understudy.model.use(conversation());
      const client = new OpenAI({ maxRetries: 0 });
      const messages: ChatCompletionMessageParam[] = [
        { role: 'user', content: 'Weather and time in Paris?' },
      ];
      const ask = async () =>
        (stream
          ? await client.chat.completions.stream({ model: 'gpt-4o', messages, tools }).finalChatCompletion()
          : await client.chat.completions.create({ model: 'gpt-4o', messages, tools })
        ).choices[0].message;
      for (let step = 0; step < 4; step++) {
        const message = await ask();
        messages.push(message);
        if (!message.tool_calls?.length) break;
        for (const call of message.tool_calls)
          if (call.type === 'function')
            messages.push({
              role: 'tool',
              tool_call_id: call.id,
              content: JSON.stringify(impl[call.function.name](JSON.parse(call.function.arguments))),
            });
      }
      messages.push({ role: 'user', content: 'And tomorrow?' });
      expect((await ask()).content).toBe('Rain tomorrow.');
      expect(understudy.model.calls).toHaveLength(3);
    });
});

describe('Anthropic Messages (@anthropic-ai/sdk), thinking on', () => {
  const tools: Tool[] = ['get_weather', 'get_time'].map((name) => ({
    name,
    input_schema: { type: 'object', properties: { city: { type: 'string' }, tz: { type: 'string' } } },
  }));

  for (const stream of [false, true])
    it(`parallel tools with thinking, then a follow-up turn (${stream ? 'streamed' : 'plain'})`, async () => {
      understudy.model.use(conversation('Two tools at once.'));
      const client = new Anthropic({ maxRetries: 0 });
      const params = {
        model: 'claude-sonnet-4-6',
        max_tokens: 2048,
        thinking: { type: 'enabled' as const, budget_tokens: 1024 },
        tools,
      };
      const messages: MessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
      const ask = () =>
        stream
          ? client.messages.stream({ ...params, messages }).finalMessage()
          : client.messages.create({ ...params, messages });
      for (let step = 0; step < 4; step++) {
        const reply = await ask();
        messages.push({ role: 'assistant', content: reply.content });
        const uses = reply.content.filter((b) => b.type === 'tool_use');
        if (uses.length === 0) break;
        messages.push({
          role: 'user',
          content: uses.map((b) => ({
            type: 'tool_result' as const,
            tool_use_id: b.id,
            content: JSON.stringify(impl[b.name](b.input)),
          })),
        });
      }
      messages.push({ role: 'user', content: 'And tomorrow?' });
      const last = await ask();
      expect(last.content).toEqual([{ type: 'text', text: 'Rain tomorrow.' }]);
      // The signed thinking block went back with the tool results, and again in the next turn.
      const echoed = (understudy.model.calls[1].request as { messages: MessageParam[] }).messages[1].content;
      expect(Array.isArray(echoed) && echoed[0]).toMatchObject({
        type: 'thinking',
        thinking: 'Two tools at once.',
      });
    });

  it('the AI SDK (@ai-sdk/anthropic) sends thinking back with parallel tool results (generateText and streamText)', async () => {
    understudy.model.use(conversation('Two tools at once.'));
    const anthropic = createAnthropic({ apiKey: 'x' });
    const options = {
      model: anthropic('claude-sonnet-4-6'),
      prompt: 'Weather and time in Paris?',
      tools: aiTools,
      stopWhen: stepCountIs(4),
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
    } as const;
    expect((await generateText(options)).text).toBe('It is 18°C in Paris at 09:30.');
    expect(await streamText(options).text).toBe('It is 18°C in Paris at 09:30.');
    expect(understudy.model.calls).toHaveLength(4);
  });

  for (const mode of ['invoke', 'stream'] as const)
    it(`LangChain (ChatAnthropic) keeps the signed thinking block through a parallel tool loop (${mode})`, async () => {
      understudy.model.use(conversation('Two tools at once.'));
      const lcTools = ['get_weather', 'get_time'].map((name) =>
        lcTool(async (a) => JSON.stringify(impl[name](a)), {
          name,
          description: name,
          schema: z.object({ city: z.string().optional(), tz: z.string().optional() }),
        }),
      );
      const model = new ChatAnthropic({
        model: 'claude-sonnet-4-6',
        apiKey: 'x',
        maxRetries: 0,
        maxTokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
      }).bindTools(lcTools);
      const messages: BaseMessage[] = [new HumanMessage('Weather and time in Paris?')];
      let text = '';
      for (let step = 0; step < 4; step++) {
        let reply: AIMessageChunk | undefined;
        if (mode === 'stream')
          for await (const c of await model.stream(messages)) reply = reply ? reply.concat(c) : c;
        else reply = (await model.invoke(messages)) as AIMessageChunk;
        if (!reply) throw new Error('no reply');
        messages.push(reply);
        if (!reply.tool_calls?.length) {
          text = reply.text;
          break;
        }
        for (const call of reply.tool_calls) {
          const t = lcTools.find((x) => x.name === call.name);
          messages.push((await t?.invoke({ ...call, type: 'tool_call' })) as ToolMessage);
        }
      }
      expect(text).toBe('It is 18°C in Paris at 09:30.');
      const echoed = (understudy.model.calls[1].request as { messages: MessageParam[] }).messages[1].content;
      expect(Array.isArray(echoed) && echoed[0]).toMatchObject({
        type: 'thinking',
        signature: expect.any(String),
      });
    });
});

describe('OpenAI Responses, store: false with encrypted reasoning', () => {
  for (const stream of [false, true])
    it(`the AI SDK round-trips encrypted_content through a parallel tool loop (${stream ? 'streamText' : 'generateText'})`, async () => {
      understudy.model.use(conversation('Two tools at once.'));
      const openai = createOpenAI({ apiKey: 'x' });
      const options = {
        model: openai('o4-mini'),
        prompt: 'Weather and time in Paris?',
        tools: aiTools,
        stopWhen: stepCountIs(4),
        providerOptions: { openai: { store: false } },
      };
      const result = stream ? streamText(options) : await generateText(options);
      expect(await result.text).toBe('It is 18°C in Paris at 09:30.');
      // Nothing was dropped: the reasoning came back whole, so the SDK had nothing to warn about.
      expect(await result.warnings).toEqual([]);
      const first = understudy.model.calls[0].request as { include?: string[] };
      expect(first.include).toContain('reasoning.encrypted_content');
      const input = (understudy.model.calls[1].request as { input: Array<Record<string, unknown>> }).input;
      expect(input.find((i) => i.type === 'reasoning')).toMatchObject({
        encrypted_content: expect.stringMatching(/^gAAAAAB/),
      });
    });

  it('the openai SDK resends every output item of a stateless loop', async () => {
    understudy.model.use(conversation('Two tools at once.'));
    const client = new OpenAI({ maxRetries: 0 });
    const tools = ['get_weather', 'get_time'].map((name) => ({
      type: 'function' as const,
      name,
      strict: false,
      parameters: { type: 'object', properties: { city: { type: 'string' }, tz: { type: 'string' } } },
    }));
    const input: any[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
    const params = {
      model: 'o4-mini',
      store: false,
      include: ['reasoning.encrypted_content' as const],
      tools,
    };
    let text = '';
    for (let step = 0; step < 4; step++) {
      const r = await client.responses.create({ ...params, input });
      input.push(...r.output);
      const calls = r.output.filter((o) => o.type === 'function_call');
      if (calls.length === 0) {
        text = r.output_text;
        break;
      }
      for (const c of calls)
        input.push({
          type: 'function_call_output',
          call_id: c.call_id,
          output: JSON.stringify(impl[c.name](JSON.parse(c.arguments))),
        });
    }
    expect(text).toBe('It is 18°C in Paris at 09:30.');
  });
});

describe('Gemini 3 thought signatures', () => {
  const MODEL = 'gemini-3-flash-preview';
  const functionDeclarations: FunctionDeclaration[] = ['get_weather', 'get_time'].map((name) => ({
    name,
    parametersJsonSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, tz: { type: 'string' } },
    },
  }));

  /** The first function call of the model turn in request `i` carries a signature the mock issued. */
  const signedEcho = (i: number) => {
    const contents = (understudy.model.calls[i].request as { contents: Content[] }).contents;
    const model = contents.filter((c) => c.role === 'model').flatMap((c) => c.parts ?? []);
    return model.find((p) => p.functionCall)?.thoughtSignature;
  };

  for (const stream of [false, true])
    it(`a manual loop that keeps the model's parts, then a follow-up turn (${stream ? 'streamed' : 'plain'})`, async () => {
      understudy.model.use(conversation());
      const ai = new GoogleGenAI({ apiKey: 'x' });
      const config = { tools: [{ functionDeclarations }] };
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather and time in Paris?' }] }];
      const ask = async () => {
        const parts: Part[] = [];
        const calls: FunctionCall[] = [];
        if (stream) {
          for await (const chunk of await ai.models.generateContentStream({
            model: MODEL,
            contents,
            config,
          })) {
            parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
            calls.push(...(chunk.functionCalls ?? []));
          }
        } else {
          const r = await ai.models.generateContent({ model: MODEL, contents, config });
          parts.push(...(r.candidates?.[0]?.content?.parts ?? []));
          calls.push(...(r.functionCalls ?? []));
        }
        contents.push({ role: 'model', parts });
        return { parts, calls };
      };
      for (let step = 0; step < 4; step++) {
        const { calls } = await ask();
        if (calls.length === 0) break;
        contents.push({
          role: 'user',
          parts: calls.map((c) => ({
            functionResponse: { id: c.id, name: c.name, response: { output: impl[c.name ?? ''](c.args) } },
          })),
        });
      }
      contents.push({ role: 'user', parts: [{ text: 'And tomorrow?' }] });
      const { parts } = await ask();
      expect(parts.map((p) => p.text).join('')).toBe('Rain tomorrow.');
      expect(signedEcho(1)).toMatch(/^Ci/);
    });

  for (const stream of [false, true])
    it(`@google/genai automatic function calling (${stream ? 'stream' : 'unary'})`, async () => {
      understudy.model.use(conversation());
      const callable: CallableTool = {
        tool: async () => ({ functionDeclarations }),
        callTool: async (calls) =>
          calls.map((c) => ({
            functionResponse: { id: c.id, name: c.name, response: { output: impl[c.name ?? ''](c.args) } },
          })),
      };
      const ai = new GoogleGenAI({ apiKey: 'x' });
      const params = { model: MODEL, contents: 'Weather and time in Paris?', config: { tools: [callable] } };
      let text = '';
      if (!stream) text = (await ai.models.generateContent(params)).text ?? '';
      else
        for await (const chunk of await ai.models.generateContentStream(params))
          if (chunk.candidates?.[0]?.content?.role === 'model')
            text += (chunk.candidates[0].content.parts ?? []).map((p) => p.text ?? '').join('');
      expect(text).toBe('It is 18°C in Paris at 09:30.');
      expect(signedEcho(1)).toMatch(/^Ci/);
    });

  for (const stream of [false, true])
    it(`the AI SDK (@ai-sdk/google) hands the signature back (${stream ? 'streamText' : 'generateText'})`, async () => {
      understudy.model.use(conversation());
      const google = createGoogleGenerativeAI({ apiKey: 'x' });
      const options = {
        model: google(MODEL),
        prompt: 'Weather and time in Paris?',
        tools: aiTools,
        stopWhen: stepCountIs(4),
      };
      const result = stream ? streamText(options) : await generateText(options);
      expect(await result.text).toBe('It is 18°C in Paris at 09:30.');
      // The real signature, not the SDK's skip sentinel: the SDK kept what the model sent.
      expect(signedEcho(1)).toMatch(/^Ci/);
    });
});
