import { type Content, GoogleGenAI, type Part } from '@google/genai';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { parallel } from './shared';

const functionDeclarations = [
  { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } },
  { name: 'get_time', parameters: { type: 'OBJECT', properties: { tz: { type: 'STRING' } } } },
] as const;

/** @google/genai's ApiError carries the status and the API's JSON body in its message. */
async function failure(p: Promise<unknown>): Promise<{ status: number; body: any }> {
  try {
    await p;
  } catch (error) {
    const e = error as { status?: number; message: string };
    if (typeof e.status !== 'number') throw error;
    return { status: e.status, body: JSON.parse(e.message.slice(e.message.indexOf('{'))) };
  }
  throw new Error('the request succeeded');
}

const ai = () => new GoogleGenAI({ apiKey: 'test-key' });

for (const stream of [false, true]) {
  it(`gemini: an agent that answers one of two function calls (${stream ? 'streamed' : 'plain'})`, async () => {
    understudy.model.use(parallel);
    const client = ai();
    const config = { tools: [{ functionDeclarations: [...functionDeclarations] as never }] };
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather and time in Paris?' }] }];
    const parts: Part[] = [];
    if (stream) {
      for await (const chunk of await client.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents,
        config,
      }))
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    } else {
      const r = await client.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
      parts.push(...(r.candidates?.[0]?.content?.parts ?? []));
    }
    const calls = parts.filter((p) => p.functionCall);
    expect(calls).toHaveLength(2);
    contents.push({ role: 'model', parts });
    const call = calls[0].functionCall;
    contents.push({
      role: 'user',
      parts: [{ functionResponse: { id: call?.id, name: call?.name, response: { tempC: 18 } } }],
    });
    const error = await failure(
      client.models.generateContent({ model: 'gemini-2.5-flash', contents, config }),
    );
    expect(error.status).toBe(400);
    expect(error.body).toEqual({
      error: {
        code: 400,
        message:
          'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
        status: 'INVALID_ARGUMENT',
      },
    });
  });
}

it('gemini 3: the function call sent back without its thought signature', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'Paris', hasToolResult: false },
      response: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    },
    { match: { userMessage: 'Paris', hasToolResult: true }, response: { content: 'Sunny.' } },
  ]);
  const client = ai();
  const config = { tools: [{ functionDeclarations: [...functionDeclarations] as never }] };
  const model = 'gemini-3-flash-preview';
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
  const r = await client.models.generateContent({ model, contents, config });
  const part = r.candidates?.[0]?.content?.parts?.[0];
  expect(part?.thoughtSignature).toMatch(/^Ci/);
  // The agent keeps only what it needs: name and arguments.
  contents.push({
    role: 'model',
    parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
  });
  contents.push({
    role: 'user',
    parts: [{ functionResponse: { name: 'get_weather', response: { tempC: 18 } } }],
  });
  const error = await failure(client.models.generateContent({ model, contents, config }));
  expect(error.status).toBe(400);
  expect(error.body.error.message).toBe(
    'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.',
  );
});

it('gemini: JSON Schema keywords in parameters', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const error = await failure(
    ai().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'book it',
      config: {
        tools: [
          {
            functionDeclarations: [
              {
                name: 'book',
                // zod's .positive() as JSON Schema: the SDK passes the keyword through.
                parameters: {
                  type: 'OBJECT',
                  properties: { day: { type: 'STRING' }, guests: { type: 'INTEGER', exclusiveMinimum: 0 } },
                } as never,
              },
            ],
          },
        ],
      },
    }),
  );
  expect(error.status).toBe(400);
  expect(error.body.error.message).toBe(
    `Invalid JSON payload received. Unknown name "exclusiveMinimum" at 'tools[0].function_declarations[0].parameters.properties[1].value': Cannot find field.`,
  );
});

it('gemini: a reply that breaks the responseSchema', async () => {
  understudy.model.use([{ match: {}, response: { content: '{"city":"Paris"}' } }]);
  await ai().models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'weather as JSON',
    config: {
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'OBJECT' as never,
        properties: { city: { type: 'STRING' as never }, tempC: { type: 'NUMBER' as never } },
        required: ['city', 'tempC'],
      },
    },
  });
});
