/** @jest-environment ./environment/jest/index.ts */
import { describe, expect, it } from '@jest/globals';
import {
  type AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { script, understudy } from 'jest-understudy';
import {
  ANSWER,
  expectWeatherRun,
  QUESTION,
  runTool,
  TOOLS,
  weatherFixtures,
} from '../../../../support/agents/weather';

const tools = TOOLS.map((t) => ({ type: 'function' as const, function: t }));

/** invoke → run tool calls → ToolMessage → invoke, as a LangChain tool loop is written by hand. */
async function agent(question: string, opts: { useResponsesApi: boolean; stream: boolean }): Promise<string> {
  const model = new ChatOpenAI({
    model: 'gpt-4o',
    apiKey: 'x',
    useResponsesApi: opts.useResponsesApi,
    streamUsage: true,
  }).bindTools(tools);
  const messages: BaseMessage[] = [new SystemMessage('You are a travel helper.'), new HumanMessage(question)];
  for (let step = 0; step < 6; step++) {
    let reply: AIMessage | AIMessageChunk;
    if (opts.stream) {
      let acc: AIMessageChunk | undefined;
      for await (const chunk of await model.stream(messages)) acc = acc ? acc.concat(chunk) : chunk;
      if (!acc) throw new Error('empty stream');
      reply = acc;
    } else {
      reply = await model.invoke(messages);
    }
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.text;
    for (const call of reply.tool_calls) {
      const result = runTool(call.name, call.args);
      messages.push(new ToolMessage({ tool_call_id: call.id!, content: JSON.stringify(result) }));
    }
  }
  throw new Error('too many steps');
}

describe('LangChain.js ChatOpenAI with bindTools', () => {
  for (const useResponsesApi of [false, true]) {
    for (const stream of [false, true]) {
      const protocol = useResponsesApi ? 'openai.responses' : 'openai.chat';
      it(`runs a parallel tool loop over ${protocol} (${stream ? 'stream' : 'invoke'})`, async () => {
        understudy.model.use(weatherFixtures({ tools: 5, answer: 5 }));
        const run = await understudy.run(() => agent(QUESTION, { useResponsesApi, stream }));
        expectWeatherRun(run);
        expect(run.output).toBe(ANSWER);
        expect(run.toolCalls.every((c) => /^call_/.test(c.id))).toBe(true);
        expect(run.modelCalls.map((c) => [c.protocol, c.streamed])).toEqual([
          [protocol, stream],
          [protocol, stream],
        ]);
        // The second request carries the whole thread back, tool results linked by call id.
        const second = run.modelCalls[1].conversation.messages;
        expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
        expect(second.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(
          run.toolCalls.map((c) => c.id),
        );
      });
    }
  }

  it('Responses API: a 429 reaches the LangChain caller with its status (LangChain owns retries)', async () => {
    // LangChain turns the SDK's retries off and retries with its own backoff (1 s minimum,
    // retry-after ignored), so a fast test lets the error through.
    understudy.model.use(script().user('busy?').fails({ status: 429, message: 'Rate limit reached' }));
    const error = await new ChatOpenAI({ model: 'gpt-4o', apiKey: 'x', useResponsesApi: true, maxRetries: 0 })
      .invoke('busy?')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, message: expect.stringContaining('Rate limit reached') });
    expect(understudy.model.calls.map((c) => c.error?.status)).toEqual([429]);
  });
});
