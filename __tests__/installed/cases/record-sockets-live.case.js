// A Gemini Live agent's function call round trip (@google/genai's ai.live.connect), recorded from a
// stand-in provider and replayed from its cassette. The driver runs it in record mode against
// aimock (REC_GEMINI_BASE_URL), then in replay with aimock stopped and CI set, and again with the
// agent changed (REC_QUESTION: another path; REC_INSTRUCTIONS: another prompt), which must fail.
const { expect, it } = require('./runner-globals.cjs');
const { GoogleGenAI, Modality } = require('@google/genai');
const { understudy } = require('jest-understudy');

const QUESTION = process.env.REC_QUESTION ?? 'What is the weather in Paris?';
const INSTRUCTIONS = process.env.REC_INSTRUCTIONS ?? 'You are a weather assistant.';
const tools = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        description: 'Weather by city',
        parametersJsonSchema: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        },
      },
    ],
  },
];

/** The agent: one Live session, the question, every function call run and answered, to the turn's end. */
async function weatherAgent(asked, baseUrl = process.env.REC_GEMINI_BASE_URL) {
  const ai = new GoogleGenAI({
    apiKey: process.env.GEMINI_API_KEY,
    ...(baseUrl && { httpOptions: { baseUrl, apiVersion: 'v1beta' } }),
  });
  const inbox = [];
  let wake;
  const push = (event) => {
    inbox.push(event);
    wake?.();
  };
  const session = await ai.live.connect({
    model: 'gemini-live-2.5-flash-preview',
    config: { responseModalities: [Modality.TEXT], systemInstruction: INSTRUCTIONS, tools },
    callbacks: {
      onmessage: (message) => push({ message }),
      onclose: (event) => push({ closed: event.code }),
    },
  });
  session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: QUESTION }] }], turnComplete: true });
  let text = '';
  try {
    for (;;) {
      while (inbox.length === 0) await new Promise((resolve) => (wake = resolve));
      const { message, closed } = inbox.shift();
      if (closed !== undefined) throw new Error(`the Live session closed (${closed})`);
      if (message.toolCall)
        session.sendToolResponse({
          functionResponses: message.toolCall.functionCalls.map((c) => {
            asked.push(c.args.city);
            return { id: c.id, name: c.name, response: { city: c.args.city, tempC: 18, sky: 'sunny' } };
          }),
        });
      for (const part of message.serverContent?.modelTurn?.parts ?? []) if (part.text) text += part.text;
      if (message.serverContent?.turnComplete && text !== '') return text;
    }
  } finally {
    session.close();
  }
}

it('a Live function call round trip: the model asks for the weather, then answers from it', async () => {
  const asked = [];
  const run = await understudy.run(() => weatherAgent(asked));
  expect(asked).toEqual(['Paris']);
  expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  expect(run).toHaveFinalMessage('It is 18 degrees and sunny in Paris.');
  expect(run.modelCalls.map((c) => c.protocol)).toEqual(['gemini.live', 'gemini.live']);
});

// Recorded in process (a served port stands for the provider's real URL, not the stand-in), replayed
// over the served port when the driver sets REC_REPLAY_SERVED: the cassette answers either carrier.
it('a Live function call round trip recorded in process, replayed over the served port (an agent in another process)', async () => {
  const baseUrl = process.env.REC_REPLAY_SERVED
    ? (await understudy.serve()).urls.gemini
    : process.env.REC_GEMINI_BASE_URL;
  const asked = [];
  const run = await understudy.run(() => weatherAgent(asked, baseUrl));
  expect(asked).toEqual(['Paris']);
  expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  expect(run).toHaveFinalMessage('It is 18 degrees and sunny in Paris.');
  expect(understudy.sockets.map((s) => new URL(s.url).host)).toEqual([
    process.env.REC_REPLAY_SERVED ? 'generativelanguage.googleapis.com' : new URL(baseUrl).host,
  ]);
});
