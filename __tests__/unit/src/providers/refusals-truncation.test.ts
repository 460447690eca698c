/**
 * Replies the model cuts short: refusals (fixture `refusal`) and truncation (`finishReason:
 * length` with a tool call cut off mid-arguments, Anthropic's `pause_turn`), in each protocol's
 * own shape, through the official clients and the AI SDK, plain and streamed.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import Anthropic from '@anthropic-ai/sdk';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from '@jest/globals';
import { generateText, type LanguageModel, streamText } from 'ai';
import { type Fixture, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { aiSdkModels } from '../../../support/agents/agents';

const REFUSAL = "I can't help with that request.";
const refusal: Fixture[] = [{ match: {}, response: { refusal: REFUSAL, chunkSize: 6 } }];
const ask = [{ role: 'user' as const, content: 'Help me with something risky.' }];

describe('refusals', () => {
  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'plain';

    it(`Chat Completions: message.refusal, no content (${mode})`, async () => {
      understudy.model.use(refusal);
      const client = new OpenAI({ maxRetries: 0 });
      const params = { model: 'gpt-4o', messages: ask };
      const completion = stream
        ? await client.chat.completions.stream(params).finalChatCompletion()
        : await client.chat.completions.create(params);
      expect(completion.choices[0].message).toMatchObject({ refusal: REFUSAL, content: null });
      expect(completion.choices[0].finish_reason).toBe('stop');
    });

    it(`Responses: a refusal content part (${mode})`, async () => {
      understudy.model.use(refusal);
      const client = new OpenAI({ maxRetries: 0 });
      const params = { model: 'gpt-4o', input: 'Help me with something risky.' };
      const response = stream
        ? await client.responses.stream(params).finalResponse()
        : await client.responses.create(params);
      expect(response.output).toEqual([
        expect.objectContaining({
          type: 'message',
          content: [expect.objectContaining({ type: 'refusal', refusal: REFUSAL })],
        }),
      ]);
      expect(response.output_text).toBe('');
    });

    it(`Anthropic: stop_reason refusal with the explanation in stop_details (${mode})`, async () => {
      understudy.model.use(refusal);
      const client = new Anthropic({ maxRetries: 0 });
      const params = { model: 'claude-sonnet-4-6', max_tokens: 256, messages: ask };
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      expect(message.stop_reason).toBe('refusal');
      expect(message.stop_details).toEqual({ type: 'refusal', category: null, explanation: REFUSAL });
      expect(message.content).toEqual([]);
    });

    it(`Gemini: a candidate blocked for safety, no content (${mode})`, async () => {
      understudy.model.use(refusal);
      const ai = new GoogleGenAI({ apiKey: 'x' });
      const params = { model: 'gemini-2.5-flash', contents: 'Help me with something risky.' };
      let finish: string | undefined;
      let text: string | undefined;
      if (stream)
        for await (const chunk of await ai.models.generateContentStream(params)) {
          finish = chunk.candidates?.[0]?.finishReason ?? finish;
          text = chunk.text ?? text;
        }
      else {
        const r = await ai.models.generateContent(params);
        finish = r.candidates?.[0]?.finishReason;
        text = r.text;
      }
      expect(finish).toBe('SAFETY');
      expect(text).toBeUndefined();
    });
  }

  it('Bedrock: stopReason content_filtered', async () => {
    understudy.model.use(refusal);
    const out = await new BedrockRuntimeClient({ maxAttempts: 1 }).send(
      new ConverseCommand({
        modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
        messages: [{ role: 'user', content: [{ text: 'x' }] }],
      }),
    );
    expect(out.stopReason).toBe('content_filtered');
    expect(out.output?.message?.content).toEqual([]);
  });

  for (const [protocol, model] of [
    ['openai.chat', aiSdkModels.openaiChat],
    ['openai.responses', aiSdkModels.openaiResponses],
    ['anthropic.messages', aiSdkModels.anthropic],
    ['gemini.generateContent', aiSdkModels.google],
    ['bedrock.converse', aiSdkModels.bedrock],
  ] as const)
    it(`AI SDK on ${protocol}: finish reason content-filter`, async () => {
      understudy.model.use(refusal);
      const plain = await generateText({ model: model(), prompt: 'Help me with something risky.' });
      const streamed = streamText({ model: model(), prompt: 'Help me with something risky.' });
      expect([plain.finishReason, await streamed.finishReason]).toEqual(['content-filter', 'content-filter']);
    });
});

/** A call cut off mid-arguments by the token limit. */
const truncated: Fixture[] = [
  {
    match: {},
    response: {
      finishReason: 'length',
      chunkSize: 4,
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris","units":"metr' }],
    },
  },
];
const weatherTool = { type: 'object' as const, properties: { city: { type: 'string' as const } } };

describe('truncation', () => {
  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'plain';

    it(`Chat Completions: finish_reason length with the call's arguments cut off (${mode})`, async () => {
      understudy.model.use(truncated);
      const client = new OpenAI({ maxRetries: 0 });
      const params = {
        model: 'gpt-4o',
        messages: ask,
        tools: [{ type: 'function' as const, function: { name: 'get_weather', parameters: weatherTool } }],
      };
      const completion = stream
        ? await client.chat.completions.stream(params).finalChatCompletion()
        : await client.chat.completions.create(params);
      expect(completion.choices[0].finish_reason).toBe('length');
      const [call] = completion.choices[0].message.tool_calls ?? [];
      expect(call.type === 'function' && call.function.arguments).toBe('{"city":"Paris","units":"metr');
    });

    it(`Anthropic: stop_reason max_tokens, the tool_use input's whole values (${mode})`, async () => {
      understudy.model.use(truncated);
      const client = new Anthropic({ maxRetries: 0 });
      const params = {
        model: 'claude-sonnet-4-6',
        max_tokens: 16,
        messages: ask,
        tools: [{ name: 'get_weather', input_schema: weatherTool }],
      };
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      expect(message.stop_reason).toBe('max_tokens');
      expect(message.content).toEqual([
        expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }),
      ]);
    });

    it(`Responses: an incomplete response with an incomplete call (${mode})`, async () => {
      understudy.model.use(truncated);
      const client = new OpenAI({ maxRetries: 0 });
      const params = {
        model: 'gpt-4o',
        input: 'Weather?',
        tools: [{ type: 'function' as const, name: 'get_weather', parameters: weatherTool, strict: false }],
      };
      const response = stream
        ? await client.responses.stream(params).finalResponse()
        : await client.responses.create(params);
      expect(response.status).toBe('incomplete');
      expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
      expect(response.output).toEqual([
        expect.objectContaining({
          type: 'function_call',
          status: 'incomplete',
          arguments: '{"city":"Paris","units":"metr',
        }),
      ]);
    });
  }

  it('AI SDK: finish reason length, the cut call not run', async () => {
    for (const model of [aiSdkModels.openaiChat, aiSdkModels.anthropic] as Array<() => LanguageModel>) {
      understudy.model.reset();
      understudy.model.use(truncated);
      const ran: unknown[] = [];
      const result = await generateText({
        model: model(),
        prompt: 'Weather?',
        tools: {
          get_weather: {
            inputSchema: (await import('ai')).jsonSchema(weatherTool),
            execute: async (args: unknown) => ran.push(args),
          },
        },
      });
      expect(result.finishReason).toBe('length');
      expect(ran.length).toBeLessThanOrEqual(1);
    }
  });

  for (const stream of [false, true])
    it(`Anthropic pause_turn: the turn pauses, to be sent back as it is (${stream ? 'streamed' : 'plain'})`, async () => {
      understudy.model.use([
        {
          match: {},
          response: { webSearches: ['paris weather'], content: 'Searching', finishReason: 'pause_turn' },
        },
      ]);
      const client = new Anthropic({ maxRetries: 0 });
      const params = {
        model: 'claude-sonnet-4-6',
        max_tokens: 256,
        messages: ask,
        tools: [{ type: 'web_search_20250305' as const, name: 'web_search' as const }],
      };
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      expect(message.stop_reason).toBe('pause_turn');
      expect(message.content.map((b) => b.type)).toEqual([
        'server_tool_use',
        'web_search_tool_result',
        'text',
      ]);
      // Without a web search tool the model pauses without searching.
      understudy.model.reset();
      understudy.model.use([{ match: {}, response: { content: 'Searching', finishReason: 'pause_turn' } }]);
      const ai = await generateText({ model: aiSdkModels.anthropic(), prompt: 'x', tools: {} });
      expect(ai.finishReason).toBe('stop');
    });
});
