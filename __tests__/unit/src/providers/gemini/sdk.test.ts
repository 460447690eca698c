/** @jest-environment ./environment/jest/index.ts */
import {
  ApiError,
  type CallableTool,
  type Content,
  type FunctionCall,
  type FunctionDeclaration,
  GoogleGenAI,
  type Part,
  Type,
} from '@google/genai';
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import {
  ANSWER,
  expectWeatherRun,
  QUESTION,
  runTool,
  weatherFixtures,
} from '../../../../support/agents/weather';

const MODEL = 'gemini-2.5-flash';

const functionDeclarations: FunctionDeclaration[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    description: 'Local time in a time zone',
    parameters: { type: Type.OBJECT, properties: { tz: { type: Type.STRING } }, required: ['tz'] },
  },
];

interface AgentOptions {
  stream: boolean;
  /** Send calls and results back without the ids the API put on them, as older samples do. */
  dropIds?: boolean;
}

/** A plain agent loop as the Gemini docs write it: generate, run the function calls, send functionResponses. */
async function agent(question: string, { stream, dropIds = false }: AgentOptions): Promise<string> {
  const ai = new GoogleGenAI({ apiKey: 'x' });
  const config = { systemInstruction: 'You are a travel helper.', tools: [{ functionDeclarations }] };
  const contents: Content[] = [{ role: 'user', parts: [{ text: question }] }];
  for (let step = 0; step < 6; step++) {
    let parts: Part[];
    let calls: FunctionCall[];
    if (stream) {
      parts = [];
      calls = [];
      for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents, config })) {
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
        calls.push(...(chunk.functionCalls ?? []));
      }
    } else {
      const response = await ai.models.generateContent({ model: MODEL, contents, config });
      parts = response.candidates?.[0]?.content?.parts ?? [];
      calls = response.functionCalls ?? [];
    }
    const text = parts
      .filter((p) => p.text && !p.thought)
      .map((p) => p.text)
      .join('');
    const strip = (p: Part): Part =>
      p.functionCall ? { functionCall: { ...p.functionCall, id: undefined } } : p;
    contents.push({ role: 'model', parts: dropIds ? parts.map(strip) : parts });
    if (calls.length === 0) return text;
    contents.push({
      role: 'user',
      parts: calls.map((call) => ({
        functionResponse: {
          ...(dropIds ? {} : { id: call.id }),
          name: call.name,
          response: { output: runTool(call.name ?? '', call.args) },
        },
      })),
    });
  }
  throw new Error('too many steps');
}

describe('Gemini generateContent through @google/genai', () => {
  for (const stream of [false, true]) {
    for (const dropIds of [false, true]) {
      const label = `${stream ? 'generateContentStream' : 'generateContent'}${dropIds ? ', ids dropped by the agent' : ''}`;
      it(`runs a parallel function-call loop (${label})`, async () => {
        understudy.model.use(weatherFixtures({ tools: 5, answer: 5 }));
        const run = await understudy.run(() => agent(QUESTION, { stream, dropIds }));
        expectWeatherRun(run);
        expect(run.output).toBe(ANSWER);
        expect(run.toolCalls[0].id).toMatch(/^call_[a-z0-9]{24}$/);
        // The second request carried the calls and results back under the same ids.
        const second = run.modelCalls[1].conversation;
        expect(second.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(
          run.toolCalls.map((c) => c.id),
        );
        expect(second.messages[0]).toEqual({ role: 'system', text: 'You are a travel helper.' });
        expect(second.tools.map((t) => t.name)).toEqual(['get_weather', 'get_time']);
        expect(run.modelCalls.map((c) => [c.protocol, c.streamed])).toEqual([
          ['gemini.generateContent', stream],
          ['gemini.generateContent', stream],
        ]);
        // @google/genai 3 defaults to the v1 API version.
        expect(run.modelCalls[0].url).toBe(
          `https://generativelanguage.googleapis.com/v1/models/${MODEL}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        );
      });
    }
  }

  it('hands the client function calls with ids, a finish reason and usage it reads back', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'two cities' },
        response: {
          reasoning: 'Both at once.',
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_paris' },
            { name: 'get_weather', arguments: { city: 'Rome' }, id: 'call_rome' },
          ],
          usage: { inputTokens: 40, outputTokens: 15, cachedInputTokens: 10, reasoningTokens: 5 },
        },
      },
    ]);
    const ai = new GoogleGenAI({ apiKey: 'x' });
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: 'Weather in two cities?',
      config: { tools: [{ functionDeclarations }] },
    });
    expect(response.functionCalls).toEqual([
      { id: 'call_paris', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'call_rome', name: 'get_weather', args: { city: 'Rome' } },
    ]);
    expect(response.candidates?.[0]?.content?.parts?.[0]).toEqual({ text: 'Both at once.', thought: true });
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 40,
      candidatesTokenCount: 10,
      thoughtsTokenCount: 5,
      cachedContentTokenCount: 10,
      totalTokenCount: 55,
    });
    expect(response.modelVersion).toBe(MODEL);
    expect(response.responseId).toMatch(/^understudy\d{6}$/);
  });

  for (const stream of [false, true]) {
    it(`drives a chat session with function responses (${stream ? 'sendMessageStream' : 'sendMessage'})`, async () => {
      understudy.model.use(
        script()
          .user('What time is it in Tokyo?')
          .callsTool('get_time', { tz: 'Asia/Tokyo' })
          .replies('It is 09:30 in Tokyo.'),
      );
      const run = await understudy.run(async () => {
        const chat = new GoogleGenAI({ apiKey: 'x' }).chats.create({
          model: MODEL,
          config: { tools: [{ functionDeclarations }] },
        });
        const send = async (message: string | Part[]) => {
          if (!stream) {
            const r = await chat.sendMessage({ message });
            return { text: r.text ?? '', calls: r.functionCalls ?? [] };
          }
          let text = '';
          const calls: FunctionCall[] = [];
          for await (const chunk of await chat.sendMessageStream({ message })) {
            text += chunk.text ?? '';
            calls.push(...(chunk.functionCalls ?? []));
          }
          return { text, calls };
        };
        let turn = await send('What time is it in Tokyo?');
        while (turn.calls.length > 0) {
          turn = await send(
            turn.calls.map((c) => ({
              functionResponse: {
                id: c.id,
                name: c.name,
                response: { output: runTool(c.name ?? '', c.args) },
              },
            })),
          );
        }
        return turn.text;
      });
      expect(run.output).toBe('It is 09:30 in Tokyo.');
      expect(run).toHaveCalledToolSequence([{ name: 'get_time', args: { tz: 'Asia/Tokyo' } }]);
      expect(run.toolCalls[0].result).toEqual({ tz: 'Asia/Tokyo', time: '09:30' });
      expect(run.terminalState).toBe('succeeded');
      // The chat kept the model turn in its history (one merged turn even when streamed).
      expect(run.modelCalls[1].conversation.messages.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
      ]);
    });
  }

  for (const stream of [false, true]) {
    it(`lets the SDK's automatic function calling run the loop with a CallableTool (${stream ? 'stream' : 'unary'})`, async () => {
      understudy.model.use(weatherFixtures({ tools: 5, answer: 5 }));
      const callable: CallableTool = {
        tool: async () => ({ functionDeclarations }),
        // AFC calls the tool once per call when streaming, with all calls at once otherwise.
        callTool: async (calls) =>
          calls.map((c) => ({
            functionResponse: { id: c.id, name: c.name, response: { output: runTool(c.name ?? '', c.args) } },
          })),
      };
      const run = await understudy.run(async () => {
        const ai = new GoogleGenAI({ apiKey: 'x' });
        const params = {
          model: MODEL,
          contents: QUESTION,
          config: { tools: [callable] },
        };
        if (!stream) return (await ai.models.generateContent(params)).text;
        let text = '';
        for await (const chunk of await ai.models.generateContentStream(params)) {
          if (chunk.candidates?.[0]?.content?.role === 'model')
            text += (chunk.candidates[0].content.parts ?? []).map((p) => p.text ?? '').join('');
        }
        return text;
      });
      expect(run.output).toBe(ANSWER);
      expect(run.terminalState).toBe('succeeded');
      expect(run.toolCalls.map((c) => [c.name, c.arguments, c.result])).toEqual([
        ['get_weather', { city: 'Paris' }, { city: 'Paris', tempC: 18 }],
        ['get_time', { tz: 'Europe/Paris' }, { tz: 'Europe/Paris', time: '09:30' }],
      ]);
      expect(run.modelCalls.map((c) => c.streamed)).toEqual([stream, stream]);
    });
  }

  it('passes a function error back as a functionResponse error, seen as the call’s error', async () => {
    understudy.model.use(
      script()
        .user('Weather in Atlantis?')
        .callsTool('get_weather', { city: 'Atlantis' })
        .replies('I could not find Atlantis.'),
    );
    const run = await understudy.run(async () => {
      const ai = new GoogleGenAI({ apiKey: 'x' });
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Atlantis?' }] }];
      const config = { tools: [{ functionDeclarations }] };
      const first = await ai.models.generateContent({ model: MODEL, contents, config });
      const call = first.functionCalls?.[0] as FunctionCall;
      contents.push(first.candidates?.[0]?.content as Content, {
        role: 'user',
        parts: [{ functionResponse: { id: call.id, name: call.name, response: { error: 'unknown city' } } }],
      });
      return (await ai.models.generateContent({ model: MODEL, contents, config })).text;
    });
    expect(run.output).toBe('I could not find Atlantis.');
    expect(run.toolCalls[0]).toMatchObject({ name: 'get_weather', error: 'unknown city', answered: true });
  });
});

describe('@google/genai and provider errors', () => {
  it('does not retry a 429 by itself: the ApiError reaches the agent', async () => {
    understudy.model.use(
      script()
        .user('Summarize the report')
        .fails({ status: 429, message: 'Resource has been exhausted (e.g. check quota).', retryAfter: 0 })
        .replies('Summary: all good.'),
    );
    const ai = new GoogleGenAI({ apiKey: 'x' });
    const error = await ai.models
      .generateContent({ model: MODEL, contents: 'Summarize the report' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect(JSON.parse((error as ApiError).message)).toMatchObject({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: 'Resource has been exhausted (e.g. check quota).',
      },
    });
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([429]);
  });

  for (const status of [429, 503]) {
    it(`retries a ${status} when the client opts in with httpOptions.retryOptions`, async () => {
      understudy.model.use(
        script()
          .user('Summarize the report')
          .fails({
            status,
            message: status === 429 ? 'Quota exceeded' : 'The model is overloaded.',
            retryAfter: 0,
          })
          .replies('Summary: all good.'),
      );
      const ai = new GoogleGenAI({
        apiKey: 'x',
        httpOptions: { retryOptions: { attempts: 3, initialDelay: 0 } },
      });
      const run = await understudy.run(async () => {
        const r = await ai.models.generateContent({ model: MODEL, contents: 'Summarize the report' });
        return r.text;
      });
      expect(run.output).toBe('Summary: all good.');
      expect(run.terminalState).toBe('succeeded');
      expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([status, 200]);
    });
  }

  it('gives up after its attempts when every retry fails', async () => {
    understudy.model.use(
      script().user('Summarize the report').fails({ status: 503, message: 'The model is overloaded.' }),
    );
    const ai = new GoogleGenAI({
      apiKey: 'x',
      httpOptions: { retryOptions: { attempts: 2, initialDelay: 0 } },
    });
    const run = await understudy.run(() =>
      ai.models.generateContentStream({ model: MODEL, contents: 'Summarize the report' }),
    );
    expect(run.terminalState).toBe('errored');
    expect((run.error as ApiError).status).toBe(503);
    expect(understudy.model.calls.map((c) => c.error?.status ?? 200)).toEqual([503, 503]);
  });
});
