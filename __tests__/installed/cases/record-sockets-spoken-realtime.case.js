// An OpenAI Realtime voice agent whose user SPEAKS (the Agents SDK's RealtimeSession sending
// microphone audio), recorded from a stand-in provider that transcribes the audio it gets, and
// replayed from the cassette. The driver runs it in record mode against the stand-in
// (REC_OPENAI_BASE_URL), then in replay with the stand-in gone, no key and CI set, and again with the user
// speaking other audio (REC_SPOKEN_MS) or a cassette whose first turn was changed, which must fail.
const { expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { voiceAgent } = require('./record-sockets-spoken-realtime-agent.cjs');

it('a spoken Realtime turn ended by server VAD (no transcription asked for): the order is looked up and answered', async () => {
  const looked = [];
  const run = await understudy.run(() => voiceAgent(looked, { vad: true }));
  expect(looked).toEqual([7]);
  expect(run.output.answer).toBe('Order 7 has shipped.');
  // The client did not ask for input transcription: none reaches it, though the recording used one.
  expect(run.output.heard).toEqual([]);
  expect(run).toHaveCalledTool('lookup_order', { id: 7 });
  expect(run).toHaveFinalMessage('Order 7 has shipped.');
  expect(run.modelCalls.map((c) => c.protocol)).toEqual(['openai.realtime', 'openai.realtime']);
});

it('a spoken Realtime turn the client commits, with its own transcription: heard, looked up and answered', async () => {
  const looked = [];
  const run = await understudy.run(() =>
    voiceAgent(looked, {
      vad: false,
      transcription: { model: 'gpt-4o-transcribe' },
    }),
  );
  expect(looked).toEqual([7]);
  expect(run.output).toEqual({ answer: 'Order 7 has shipped.', heard: ['Where is order 7?'] });
  expect(run).toHaveCalledTool('lookup_order', { id: 7 });
  expect(run).toHaveFinalMessage('Order 7 has shipped.');
});
