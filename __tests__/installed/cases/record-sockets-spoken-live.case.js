// A Gemini Live agent whose user SPEAKS (@google/genai's ai.live.connect streaming microphone
// audio), recorded from a stand-in provider that transcribes the audio it gets, and replayed from
// the cassette. The driver runs it in record mode against the stand-in (REC_GEMINI_BASE_URL), then
// in replay with the stand-in gone, no key and CI set, and again with the user speaking other
// audio (REC_SPOKEN_MS) or a cassette whose first turn was changed, which must fail.
const { expect, it } = require('./runner-globals.cjs');
const { GoogleGenAI, Modality } = require('@google/genai');
const { understudy } = require('jest-understudy');
const { pcm, chunks } = require('./record-sockets-spoken-audio.cjs');

const RATE = 16000;
/** How long the user speaks: the driver changes it to speak a turn the recording does not cover. */
const SPOKEN_MS = Number(process.env.REC_SPOKEN_MS ?? 700);
const tools = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        description: 'Weather by zone',
        parametersJsonSchema: {
          type: 'object',
          properties: { zone: { type: 'number' } },
          required: ['zone'],
        },
      },
    ],
  },
];

/**
 * The agent: one Live session, the user's question spoken (ended by `audioStreamEnd`, or by
 * activity end under manual activity detection), every function call answered, to the turn's end.
 */
async function weatherAgent(asked, { manual = false, transcribe = true } = {}) {
  const baseUrl = process.env.REC_GEMINI_BASE_URL;
  const ai = new GoogleGenAI({
    apiKey: process.env.GEMINI_API_KEY ?? 'AIza-none',
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
    config: {
      responseModalities: [Modality.TEXT],
      systemInstruction: 'You are a weather assistant.',
      tools,
      ...(transcribe && { inputAudioTranscription: {} }),
      ...(manual && { realtimeInputConfig: { automaticActivityDetection: { disabled: true } } }),
    },
    callbacks: {
      onmessage: (message) => push({ message }),
      onclose: (event) => push({ closed: event.code }),
    },
  });
  const speak = () => {
    if (manual) session.sendRealtimeInput({ activityStart: {} });
    for (const data of chunks(pcm(SPOKEN_MS, RATE), RATE))
      session.sendRealtimeInput({ audio: { data, mimeType: `audio/pcm;rate=${RATE}` } });
    session.sendRealtimeInput(manual ? { activityEnd: {} } : { audioStreamEnd: true });
  };
  speak();
  const heard = [];
  let text = '';
  try {
    for (;;) {
      while (inbox.length === 0) await new Promise((resolve) => (wake = resolve));
      const { message, closed } = inbox.shift();
      if (closed !== undefined) throw new Error(`the Live session closed (${closed})`);
      if (message.serverContent?.inputTranscription)
        heard.push(message.serverContent.inputTranscription.text);
      if (message.toolCall)
        session.sendToolResponse({
          functionResponses: message.toolCall.functionCalls.map((c) => {
            asked.push(c.args.zone);
            return { id: c.id, name: c.name, response: { zone: c.args.zone, sky: 'sunny' } };
          }),
        });
      for (const part of message.serverContent?.modelTurn?.parts ?? []) if (part.text) text += part.text;
      if (message.serverContent?.turnComplete && text !== '') {
        return { answer: text, heard };
      }
    }
  } finally {
    session.close();
  }
}

it('a spoken Live turn (automatic activity detection, audioStreamEnd): heard, the function called and answered', async () => {
  const asked = [];
  const run = await understudy.run(() => weatherAgent(asked));
  expect(asked).toEqual([7]);
  expect(run.output).toEqual({ answer: 'Zone 7 is sunny.', heard: ['Weather for zone 7, please.'] });
  expect(run).toHaveCalledTool('get_weather', { zone: 7 });
  expect(run).toHaveFinalMessage('Zone 7 is sunny.');
  expect(run.modelCalls.map((c) => c.protocol)).toEqual(['gemini.live', 'gemini.live']);
});

it('a spoken Live turn under manual activity detection, no transcription asked for: the function called and answered', async () => {
  const asked = [];
  const run = await understudy.run(() => weatherAgent(asked, { manual: true, transcribe: false }));
  expect(asked).toEqual([7]);
  expect(run.output).toEqual({ answer: 'Zone 7 is sunny.', heard: [] });
  expect(run).toHaveCalledTool('get_weather', { zone: 7 });
  expect(run).toHaveFinalMessage('Zone 7 is sunny.');
});
