/**
 * @understudy-fixtures ./fixtures/travel.fixture.yaml
 * @jest-environment ./environment/jest/index.ts
 */

import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';

const QUESTION = 'Plan a day in Lisbon for me';
const FINAL = 'Sunny, 24°C: MAAT then Gulbenkian, dinner booked for 19:30.';

const toolImpl: Record<string, (args: any) => unknown> = {
  get_weather: ({ city }) => ({ city, sky: 'sunny', tempC: 24 }),
  find_museums: ({ limit }) => ({ museums: ['MAAT', 'Gulbenkian'].slice(0, limit) }),
  book_table: ({ time }) => ({ booked: true, time }),
};
const schemas = {
  get_weather: { type: 'object', properties: { city: { type: 'string' } } },
  find_museums: { type: 'object', properties: { city: { type: 'string' }, limit: { type: 'number' } } },
  book_table: { type: 'object', properties: { city: { type: 'string' }, time: { type: 'string' } } },
};
const names = Object.keys(schemas) as Array<keyof typeof schemas>;

async function openaiChatAgent(stream: boolean) {
  const client = new OpenAI();
  const tools = names.map((name) => ({
    type: 'function' as const,
    function: { name, parameters: schemas[name] },
  }));
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
  for (;;) {
    const completion = stream
      ? await client.chat.completions.stream({ model: 'gpt-4o', messages, tools }).finalChatCompletion()
      : await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      const result = toolImpl[call.function.name](JSON.parse(call.function.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
}

async function openaiResponsesAgent(stream: boolean) {
  const client = new OpenAI();
  const tools = names.map((name) => ({
    type: 'function' as const,
    name,
    parameters: schemas[name],
    strict: false,
  }));
  let input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: QUESTION }];
  let previous: string | undefined;
  for (;;) {
    const response = stream
      ? await client.responses
          .stream({ model: 'gpt-4o', input, tools, previous_response_id: previous })
          .finalResponse()
      : await client.responses.create({ model: 'gpt-4o', input, tools, previous_response_id: previous });
    const calls = response.output.flatMap((o) =>
      o.type === 'function_call' ? [o as OpenAI.Responses.ResponseFunctionToolCall] : [],
    );
    if (calls.length === 0) return response.output_text;
    previous = response.id;
    input = calls.map((c) => ({
      type: 'function_call_output' as const,
      call_id: c.call_id,
      output: JSON.stringify(toolImpl[c.name](JSON.parse(c.arguments))),
    }));
  }
}

async function anthropicAgent(stream: boolean) {
  const client = new Anthropic();
  const tools = names.map((name) => ({ name, input_schema: schemas[name] as Anthropic.Tool.InputSchema }));
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: QUESTION }];
  for (;;) {
    const params = { model: 'claude-sonnet-4-6', max_tokens: 1024, messages, tools };
    const message = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params);
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    messages.push({
      role: 'user',
      content: uses.map((u) => ({
        type: 'tool_result' as const,
        tool_use_id: u.id,
        content: JSON.stringify(toolImpl[u.name](u.input)),
      })),
    });
  }
}

async function geminiAgent(stream: boolean) {
  const ai = new GoogleGenAI({ apiKey: 'x' });
  const config = {
    tools: [{ functionDeclarations: names.map((name) => ({ name, parametersJsonSchema: schemas[name] })) }],
  };
  const contents: any[] = [{ role: 'user', parts: [{ text: QUESTION }] }];
  for (;;) {
    let parts: any[] = [];
    if (stream) {
      for await (const chunk of await ai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents,
        config,
      })) {
        parts = parts.concat(chunk.candidates?.[0]?.content?.parts ?? []);
      }
    } else {
      const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
      parts = response.candidates?.[0]?.content?.parts ?? [];
    }
    contents.push({ role: 'model', parts });
    const calls = parts.filter((p) => p.functionCall);
    if (calls.length === 0) return parts.map((p) => p.text ?? '').join('');
    contents.push({
      role: 'user',
      parts: calls.map((p) => ({
        functionResponse: {
          id: p.functionCall.id,
          name: p.functionCall.name,
          response: toolImpl[p.functionCall.name](p.functionCall.args),
        },
      })),
    });
  }
}

const agents = {
  'openai.chat': openaiChatAgent,
  'openai.responses': openaiResponsesAgent,
  'anthropic.messages': anthropicAgent,
  'gemini.generateContent': geminiAgent,
};

describe('one provider-neutral fixture file, four wire protocols', () => {
  for (const [protocol, agent] of Object.entries(agents)) {
    for (const stream of [false, true]) {
      it(`${protocol} replays the same trajectory (${stream ? 'streamed' : 'not streamed'})`, async () => {
        const run = await understudy.run(() => agent(stream));
        expect(run).toHaveTerminalState('succeeded');
        expect(run.output).toBe(FINAL);
        expect(run).toHaveFinalMessage(FINAL);
        expect(run).toHaveCalledToolSequence(['get_weather', 'find_museums', 'book_table']);
        expect(run).toHaveCalledToolSequence(
          [
            { name: 'find_museums', args: { city: 'Lisbon', limit: 2 } },
            { name: 'get_weather', args: { city: 'Lisbon' } },
          ],
          { mode: 'subset', args: 'exact' },
        );
        expect(run.toolCalls.map((t) => t.result)).toEqual([
          { city: 'Lisbon', sky: 'sunny', tempC: 24 },
          { museums: ['MAAT', 'Gulbenkian'] },
          { booked: true, time: '19:30' },
        ]);
        expect(run.modelCalls.map((c) => [c.protocol, c.fixture?.id])).toEqual([
          [protocol, 'plan-trip'],
          [protocol, 'book-after-lookups'],
          [protocol, 'final-answer'],
        ]);
        expect(run.modelCalls[2].response?.usage).toMatchObject({
          inputTokens: 120,
          outputTokens: 20,
          cachedInputTokens: 64,
        });
      });
    }
  }
});
