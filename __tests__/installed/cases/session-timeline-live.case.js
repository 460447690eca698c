// Gemini Live sessions whose traces the driver (session-timeline.test.ts) reads: the project writes
// every test's trace (`traces: 'always'`), and each test here leaves one session in it.
const { expect, it } = require('./runner-globals.cjs');
const { GoogleGenAI, Modality } = require('@google/genai');
const { understudy, script } = require('jest-understudy');

const MODEL = 'gemini-live-2.5-flash-preview';
const ANSWER = 'It is 18 degrees and sunny in Paris.';
const STORY = 'Once upon a time there was a very long story that went on and on.';
const tools = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        description: 'Weather by city',
        parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
  },
];

/** A second of a 220 Hz tone, PCM16 at 16 kHz: speech the mock cannot read, as a microphone's would be. */
function microphone() {
  const pcm = Buffer.alloc(16000 * 2);
  for (let i = 0; i < 16000; i++)
    pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / 16000)), i * 2);
  return pcm;
}

/** A Live session's messages, one at a time (`baseUrl`: the served port's, for a client in another process). */
async function connect(config, baseUrl) {
  const inbox = [];
  let wake;
  let ended;
  const closed = new Promise((resolve) => (ended = resolve));
  const ai = new GoogleGenAI({ apiKey: 'test-key', ...(baseUrl && { httpOptions: { baseUrl } }) });
  const session = await ai.live.connect({
    model: MODEL,
    config,
    callbacks: {
      onmessage: (message) => {
        inbox.push(message);
        wake?.();
      },
      onclose: () => ended(),
    },
  });
  const next = async () => {
    while (inbox.length === 0) await new Promise((resolve) => (wake = resolve));
    return inbox.shift();
  };
  return { session, next, closed };
}

it('a spoken question, a function call and the answer, in audio', async () => {
  understudy.model.use(
    script()
      .user('What is the weather in Paris?')
      .callsTool('get_weather', { city: 'Paris' })
      .replies(ANSWER),
  );
  const run = await understudy.run(async () => {
    const { session, next, closed } = await connect({
      responseModalities: [Modality.AUDIO],
      tools,
      outputAudioTranscription: {},
      inputAudioTranscription: {},
    });
    const pcm = microphone();
    for (let at = 0; at < pcm.length; at += 3200)
      session.sendRealtimeInput({
        audio: { data: pcm.subarray(at, at + 3200).toString('base64'), mimeType: 'audio/pcm;rate=16000' },
      });
    session.sendRealtimeInput({ audioStreamEnd: true });
    let text = '';
    for (;;) {
      const message = await next();
      if (message.toolCall)
        session.sendToolResponse({
          functionResponses: message.toolCall.functionCalls.map((c) => ({
            id: c.id,
            name: c.name,
            response: { city: c.args.city, tempC: 18 },
          })),
        });
      if (message.serverContent?.outputTranscription?.text)
        text += message.serverContent.outputTranscription.text;
      if (message.serverContent?.turnComplete) {
        session.close();
        await closed;
        return text;
      }
    }
  });
  expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  expect(run).toHaveFinalMessage(ANSWER);
});

it('the user cuts in: the model stops, and the next turn is answered', async () => {
  understudy.model.use([
    { match: { userMessage: 'story' }, response: { content: STORY, chunkSize: 10, chunkDelay: 500 } },
    { match: { userMessage: 'stop' }, response: { content: 'Stopping.' } },
  ]);
  const run = await understudy.run(async () => {
    const { session, next, closed } = await connect({ responseModalities: [Modality.TEXT] });
    session.sendClientContent({ turns: 'Tell me a story', turnComplete: true });
    let text = '';
    let cutIn = false;
    for (;;) {
      const { serverContent: content } = await next();
      for (const part of content?.modelTurn?.parts ?? []) text += part.text ?? '';
      if (!cutIn && text) {
        cutIn = true;
        session.sendClientContent({ turns: 'Please stop', turnComplete: true });
        text = '';
      }
      if (content?.turnComplete && text === 'Stopping.') {
        session.close();
        await closed;
        return text;
      }
    }
  });
  expect(run).toHaveFinalMessage('Stopping.');
});

it('over the served port: a typed question, a function call and the answer', async () => {
  understudy.model.use(script().user('Paris').callsTool('get_weather', { city: 'Paris' }).replies(ANSWER));
  const served = await understudy.serve();
  const run = await understudy.run(async () => {
    const { session, next, closed } = await connect(
      { responseModalities: [Modality.TEXT], tools },
      served.urls.gemini,
    );
    session.sendClientContent({ turns: 'Weather in Paris?', turnComplete: true });
    let text = '';
    for (;;) {
      const message = await next();
      if (message.toolCall)
        session.sendToolResponse({
          functionResponses: message.toolCall.functionCalls.map((c) => ({
            id: c.id,
            name: c.name,
            response: { city: c.args.city, tempC: 18 },
          })),
        });
      for (const part of message.serverContent?.modelTurn?.parts ?? []) text += part.text ?? '';
      if (message.serverContent?.turnComplete) {
        session.close();
        await closed;
        return text;
      }
    }
  });
  expect(run).toHaveFinalMessage(ANSWER);
});
