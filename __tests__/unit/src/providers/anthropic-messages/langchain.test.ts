/** @jest-environment ./environment/jest/index.ts */
import { describe, expect, it } from '@jest/globals';
import { ChatAnthropic } from '@langchain/anthropic';
import {
  type AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  type ToolMessage,
} from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { understudy } from 'jest-understudy';
import { z } from 'zod';
import {
  ANSWER,
  expectWeatherRun,
  QUESTION,
  TOOLS,
  time,
  weather,
  weatherFixtures,
} from '../../../../support/agents/weather';

const [forWeather, forTime] = TOOLS;
const getWeather = tool(async (input) => JSON.stringify(weather(input)), {
  name: forWeather.name,
  description: forWeather.description,
  schema: z.object({ city: z.string() }),
});
const getTime = tool(async (input) => JSON.stringify(time(input)), {
  name: forTime.name,
  description: forTime.description,
  schema: z.object({ tz: z.string() }),
});
const byName: Record<string, StructuredToolInterface> = {
  get_weather: getWeather,
  get_time: getTime,
};

type Mode = 'invoke' | 'stream' | 'streaming-invoke';

/** bindTools → invoke → run each tool call (the tool returns a ToolMessage) → invoke again. */
async function agent(
  question: string,
  mode: Mode,
): Promise<{ text: string; first?: AIMessage | AIMessageChunk }> {
  const model = new ChatAnthropic({
    model: 'claude-sonnet-4-6',
    apiKey: 'x',
    maxRetries: 0,
    streaming: mode === 'streaming-invoke',
  }).bindTools([getWeather, getTime]);
  const messages: BaseMessage[] = [new SystemMessage('You are a travel helper.'), new HumanMessage(question)];
  let first: AIMessage | AIMessageChunk | undefined;
  for (let step = 0; step < 6; step++) {
    let reply: AIMessage | AIMessageChunk;
    if (mode === 'stream') {
      let acc: AIMessageChunk | undefined;
      for await (const chunk of await model.stream(messages)) acc = acc ? acc.concat(chunk) : chunk;
      if (!acc) throw new Error('empty stream');
      reply = acc;
    } else {
      reply = await model.invoke(messages);
    }
    first ??= reply;
    messages.push(reply);
    if (!reply.tool_calls?.length) return { text: reply.text, first };
    for (const call of reply.tool_calls) {
      messages.push((await byName[call.name].invoke({ ...call, type: 'tool_call' })) as ToolMessage);
    }
  }
  throw new Error('too many steps');
}

const fixtures = weatherFixtures({
  tools: 5,
  answer: 5,
  preamble: 'Let me check.',
  usage: { inputTokens: 300, outputTokens: 50, cachedInputTokens: 200 },
});

describe('LangChain.js ChatAnthropic with bindTools', () => {
  for (const mode of ['invoke', 'stream', 'streaming-invoke'] as const) {
    it(`runs a parallel tool loop (${mode})`, async () => {
      understudy.model.use(fixtures);
      let first: AIMessage | AIMessageChunk | undefined;
      const run = await understudy.run(async () => {
        const out = await agent(QUESTION, mode);
        first = out.first;
        return out.text;
      });
      expectWeatherRun(run);
      expect(run.output).toBe(ANSWER);
      const streamed = mode !== 'invoke';
      expect(run.modelCalls.map((c) => c.streamed)).toEqual([streamed, streamed]);
      expect(first?.tool_calls?.map((c) => c.id)).toEqual(run.toolCalls.map((c) => c.id));
      expect(first?.usage_metadata).toMatchObject({
        input_tokens: 300,
        // Streamed, LangChain adds message_start's output_tokens (1, as the API sends) to message_delta's.
        output_tokens: streamed ? 51 : 50,
        input_token_details: { cache_read: 200 },
      });
      const second = run.modelCalls[1].conversation;
      expect(second.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
      expect(second.messages[2]).toMatchObject({ text: 'Let me check.' });
      expect(second.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(
        run.toolCalls.map((c) => c.id),
      );
    });
  }
});
