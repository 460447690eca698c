// Gemini Live through @google/genai's `ai.live.connect`, from the installed package: a voice or
// text agent whose model calls a function, answered over the socket, in process and over the
// served port. The tests named "must fail" hold an agent or an assertion that is wrong; the driver
// checks each fails, with jest-understudy's message.
const { expect, it } = require('./runner-globals.cjs');
const { GoogleGenAI, Modality } = require('@google/genai');
const { understudy, script } = require('jest-understudy');

const MODEL = 'gemini-live-2.5-flash-preview';
const QUESTION = 'What is the weather in Paris?';
const ANSWER = 'It is 18 degrees and sunny in Paris.';
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
const runTool = (name, args) => ({ city: args.city, tempC: 18, sky: 'sunny', tool: name });

const weather = () => script().user('Paris').callsTool('get_weather', { city: 'Paris' }).replies(ANSWER);

/** A second of a 220 Hz tone, PCM16 at 16 kHz: speech the mock cannot read, as a microphone's would be. */
function microphone() {
  const pcm = Buffer.alloc(16000 * 2);
  for (let i = 0; i < 16000; i++)
    pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / 16000)), i * 2);
  return pcm;
}

/**
 * The agent: one Live session, a question (typed, or `spoken` into the microphone), every function
 * call run and answered, until the turn is complete. It reads the text (TEXT) or the transcript of
 * the audio (AUDIO), and keeps what the input transcription says it heard in `heard`. `ignoreClose`:
 * the bug of an agent that takes a socket closed under it for the end of the answer.
 */
async function liveAgent(
  ai,
  { modality = Modality.TEXT, ignoreClose = false, spoken = false, heard = [] } = {},
) {
  const inbox = [];
  let wake;
  const push = (event) => {
    inbox.push(event);
    wake?.();
  };
  const next = async () => {
    while (inbox.length === 0) await new Promise((resolve) => (wake = resolve));
    return inbox.shift();
  };
  const session = await ai.live.connect({
    model: MODEL,
    config: {
      responseModalities: [modality],
      systemInstruction: 'You are a weather assistant.',
      tools,
      ...(modality === Modality.AUDIO ? { outputAudioTranscription: {} } : {}),
      ...(spoken ? { inputAudioTranscription: {} } : {}),
    },
    callbacks: {
      onmessage: (message) => push({ message }),
      onclose: (event) => push({ closed: { code: event.code, reason: event.reason } }),
    },
  });
  if (spoken) {
    const pcm = microphone();
    for (let at = 0; at < pcm.length; at += 3200)
      session.sendRealtimeInput({
        audio: { data: pcm.subarray(at, at + 3200).toString('base64'), mimeType: 'audio/pcm;rate=16000' },
      });
    session.sendRealtimeInput({ audioStreamEnd: true });
  } else
    session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: QUESTION }] }], turnComplete: true });
  let text = '';
  let audioBytes = 0;
  for (;;) {
    const { message, closed } = await next();
    if (closed) {
      if (ignoreClose) return text;
      throw new Error(`the Live session closed (${closed.code}): ${closed.reason}`);
    }
    if (message.toolCall) {
      session.sendToolResponse({
        functionResponses: message.toolCall.functionCalls.map((c) => ({
          id: c.id,
          name: c.name,
          response: runTool(c.name, c.args),
        })),
      });
    }
    const content = message.serverContent;
    if (content?.inputTranscription?.text) heard.push(content.inputTranscription.text);
    for (const part of content?.modelTurn?.parts ?? []) {
      if (part.text) text += part.text;
      if (part.inlineData) audioBytes += Buffer.from(part.inlineData.data, 'base64').length;
    }
    if (content?.outputTranscription?.text) text += content.outputTranscription.text;
    if (content?.turnComplete) {
      session.close();
      if (modality === Modality.AUDIO && audioBytes === 0) throw new Error('no audio came');
      return text;
    }
  }
}

const inProcess = () => new GoogleGenAI({ apiKey: 'test-key' });

for (const modality of [Modality.TEXT, Modality.AUDIO]) {
  it(`${modality}: the agent's function call round trip over ai.live.connect`, async () => {
    understudy.model.use(weather());
    const run = await understudy.run(() => liveAgent(inProcess(), { modality }));
    expect(run.terminalState).toBe('succeeded');
    expect(run.output).toBe(ANSWER);
    expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
    expect(run.toolCalls[0].result).toEqual({ city: 'Paris', tempC: 18, sky: 'sunny', tool: 'get_weather' });
    expect(run).toHaveFinalMessage(ANSWER);
    expect(run.modelCalls.map((c) => [c.provider, c.protocol])).toEqual([
      ['gemini', 'gemini.live'],
      ['gemini', 'gemini.live'],
    ]);
  });
}

it('spoken input: the user says what the fixture has them say, and inputTranscription carries it', async () => {
  understudy.model.use(
    script()
      .user('What is the weather in Paris?')
      .callsTool('get_weather', { city: 'Paris' })
      .replies(ANSWER),
  );
  const heard = [];
  const run = await understudy.run(() =>
    liveAgent(inProcess(), { modality: Modality.AUDIO, spoken: true, heard }),
  );
  expect(heard).toEqual(['What is the weather in Paris?']);
  expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  expect(run).toHaveFinalMessage(ANSWER);
});

it('over the served port: the same loop, credited to the run', async () => {
  understudy.model.use(weather());
  const served = await understudy.serve();
  const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: served.urls.gemini } });
  const run = await understudy.run(() => liveAgent(ai, { modality: Modality.AUDIO }));
  expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  expect(run).toHaveFinalMessage(ANSWER);
  expect(run.modelCalls).toHaveLength(2);
});

it('must fail: the test expects get_time, the model called get_weather', async () => {
  understudy.model.use(weather());
  const run = await understudy.run(() => liveAgent(inProcess()));
  expect(run).toHaveCalledTool('get_time');
});

it('must fail: the socket is cut mid-answer and the agent takes what came for the answer', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'Paris', turnIndex: 0 },
      response: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    },
    {
      match: { userMessage: 'Paris', turnIndex: 1 },
      response: { content: ANSWER, chunkSize: 8, disconnect: true },
    },
  ]);
  const run = await understudy.run(() => liveAgent(inProcess(), { ignoreClose: true }));
  expect(run).toHaveTerminalState('succeeded');
});

it('must fail: a setup the API refuses (two response modalities) closes the session with its code', async () => {
  understudy.model.use(weather());
  const ai = inProcess();
  const error = await ai.live
    .connect({
      model: MODEL,
      config: { responseModalities: [Modality.TEXT, Modality.AUDIO] },
      callbacks: { onmessage() {} },
    })
    .catch((e) => e);
  expect(String(error)).toContain('1007');
});

it('interruption: the user cuts in, the model stops, and the run keeps what reached the agent', async () => {
  const STORY = 'Once upon a time there was a very long story that went on and on.';
  understudy.model.use([
    { match: { userMessage: 'story' }, response: { content: STORY, chunkSize: 10, chunkDelay: 500 } },
    { match: { userMessage: 'stop' }, response: { content: 'Stopping.' } },
  ]);
  const seen = [];
  const run = await understudy.run(async () => {
    const inbox = [];
    let wake;
    const session = await inProcess().live.connect({
      model: MODEL,
      config: { responseModalities: [Modality.TEXT] },
      callbacks: {
        onmessage: (message) => {
          inbox.push(message);
          wake?.();
        },
      },
    });
    session.sendClientContent({ turns: 'Tell me a story', turnComplete: true });
    let text = '';
    let cutIn = false;
    for (;;) {
      while (inbox.length === 0) await new Promise((resolve) => (wake = resolve));
      const { serverContent: content } = inbox.shift();
      if (content?.interrupted) seen.push('interrupted');
      for (const part of content?.modelTurn?.parts ?? []) text += part.text ?? '';
      if (!cutIn && text) {
        cutIn = true;
        seen.push(`heard "${text}"`);
        session.sendClientContent({ turns: 'Please stop', turnComplete: true });
        text = '';
      }
      if (content?.turnComplete && text === 'Stopping.') {
        session.close();
        return text;
      }
    }
  });
  expect(seen).toEqual(['heard "Once upon "', 'interrupted']);
  expect(run).toHaveFinalMessage('Stopping.');
  expect(run).toHaveTerminalState('succeeded');
  const [story] = run.modelCalls;
  expect(story.cut).toEqual(expect.objectContaining({ reason: 'aborted' }));
  expect(story.response.content).toBe('Once upon ');
  expect(story.whole.content).toBe(STORY);
});
