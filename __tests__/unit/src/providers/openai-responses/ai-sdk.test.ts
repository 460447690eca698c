/** @jest-environment ./environment/jest/index.ts */
import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from '@jest/globals';
import { generateText, stepCountIs, streamText } from 'ai';
import { script, understudy } from 'jest-understudy';
import { aiSdkWeatherTools } from '../../../../support/agents/ai-sdk-weather';
import { ANSWER, expectWeatherRun, QUESTION, weatherFixtures } from '../../../../support/agents/weather';

const openai = createOpenAI({ apiKey: 'x' });

const tools = aiSdkWeatherTools({ closed: true });

const fixtures = () => weatherFixtures({ tools: 6, answer: 6 });

const models = [
  { label: "openai('gpt-4o') — Responses API", model: () => openai('gpt-4o'), protocol: 'openai.responses' },
  {
    label: "openai.chat('gpt-4o') — Chat Completions",
    model: () => openai.chat('gpt-4o'),
    protocol: 'openai.chat',
  },
];

describe('Vercel AI SDK (@ai-sdk/openai) multi-step tool loops', () => {
  for (const { label, model, protocol } of models) {
    describe(label, () => {
      it('generateText runs parallel tools and stops with the answer', async () => {
        understudy.model.use(fixtures());
        let steps = 0;
        const run = await understudy.run(async () => {
          const result = await generateText({
            model: model(),
            system: 'You are a travel helper.',
            prompt: QUESTION,
            tools,
            stopWhen: stepCountIs(5),
          });
          steps = result.steps.length;
          expect(result.steps[0].toolCalls.map((c) => c.toolName)).toEqual(['get_weather', 'get_time']);
          expect(result.steps[0].finishReason).toBe('tool-calls');
          expect(result.finishReason).toBe('stop');
          expect(result.totalUsage.inputTokens).toBeGreaterThan(0);
          return result.text;
        });
        expect(steps).toBe(2);
        expectWeatherRun(run);
        expect(run.output).toBe(ANSWER);
        expect(run.modelCalls.map((c) => [c.protocol, c.streamed])).toEqual([
          [protocol, false],
          [protocol, false],
        ]);
      });

      it('streamText reassembles streamed parallel calls with their ids and arguments', async () => {
        understudy.model.use(fixtures());
        const deltas: string[] = [];
        const run = await understudy.run(async () => {
          const result = streamText({
            model: model(),
            prompt: QUESTION,
            tools,
            stopWhen: stepCountIs(5),
          });
          for await (const part of result.textStream) deltas.push(part);
          const steps = await result.steps;
          expect(steps).toHaveLength(2);
          expect(steps[0].toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
            [expect.stringMatching(/^call_/), 'get_weather', { city: 'Paris' }],
            [expect.stringMatching(/^call_/), 'get_time', { tz: 'Europe/Paris' }],
          ]);
          return result.text;
        });
        expect(deltas.join('')).toBe(ANSWER);
        expect(deltas.length).toBeGreaterThan(1);
        expectWeatherRun(run);
        expect(run.output).toBe(ANSWER);
        expect(run.modelCalls.map((c) => [c.protocol, c.streamed])).toEqual([
          [protocol, true],
          [protocol, true],
        ]);
      });
    });
  }

  it('Responses API: a step with text and a call is sent back as an item_reference the mock resolves', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'Rome', turnIndex: 0 },
        response: {
          content: 'Let me look that up.',
          toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }],
        },
      },
      {
        match: { userMessage: 'Rome', turnIndex: 1, hasToolResult: true },
        response: { content: '25°C in Rome.' },
      },
    ]);
    for (const stream of [false, true]) {
      understudy.model.calls.length = 0;
      const options = {
        model: openai('gpt-4o'),
        prompt: 'Weather in Rome?',
        tools,
        stopWhen: stepCountIs(5),
      };
      const steps = stream ? await streamText(options).steps : (await generateText(options)).steps;
      expect(steps.map((s) => s.text)).toEqual(['Let me look that up.', '25°C in Rome.']);
      const [, second] = understudy.model.calls;
      const input = (second.request as { input: Array<{ type?: string }> }).input;
      expect(input.map((i) => i.type ?? 'message')).toEqual([
        'message',
        'item_reference',
        'function_call',
        'function_call_output',
      ]);
      expect(second.conversation.messages).toEqual([
        { role: 'user', text: 'Weather in Rome?' },
        {
          role: 'assistant',
          text: 'Let me look that up.',
          toolCalls: [
            { id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{"city":"Rome"}' },
          ],
        },
        {
          role: 'tool',
          text: expect.stringContaining('"tempC":25'),
          toolCallId: expect.stringMatching(/^call_/),
        },
      ]);
    }
  });

  it('Responses API: reasoning summaries surface as reasoning and their item is referenced on the next step', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'Oslo', turnIndex: 0 },
        response: {
          chunkSize: 5,
          reasoning: 'The user wants Oslo weather.',
          toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        },
      },
      {
        match: { userMessage: 'Oslo', turnIndex: 1, hasToolResult: true },
        response: { content: 'Cold in Oslo.' },
      },
    ]);
    for (const stream of [false, true]) {
      understudy.model.calls.length = 0;
      const options = {
        model: openai('gpt-4o'),
        prompt: 'Weather in Oslo?',
        tools,
        stopWhen: stepCountIs(5),
      };
      const steps = stream ? await streamText(options).steps : (await generateText(options)).steps;
      expect(steps.map((s) => s.reasoningText)).toEqual(['The user wants Oslo weather.', undefined]);
      expect(steps[1].text).toBe('Cold in Oslo.');
      const input = (understudy.model.calls[1].request as { input: Array<{ type?: string; id?: string }> })
        .input;
      expect(input[1]).toEqual({ type: 'item_reference', id: expect.stringMatching(/^rs_/) });
      expect(understudy.model.calls[1].conversation.messages[1]).toMatchObject({
        role: 'assistant',
        reasoning: 'The user wants Oslo weather.',
        toolCalls: [{ name: 'get_weather' }],
      });
    }
  });

  it('Responses API: the SDK retries a 429 (retry-after 0) and the call succeeds', async () => {
    understudy.model.use(
      script()
        .user('busy?')
        .fails({ status: 429, message: 'Rate limit reached', retryAfter: 0 })
        .replies('Hello.'),
    );
    const { text } = await generateText({ model: openai('gpt-4o'), prompt: 'busy?' });
    expect(text).toBe('Hello.');
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([429, 200]);
  });
});
