// OpenAI Realtime sessions whose traces the driver (session-timeline.test.ts) reads: the project
// writes every test's trace (`traces: 'always'`), and each test here leaves one session in it. The
// tests check the agent's side; the driver checks what the trace and the timeline say happened.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { OpenAIRealtimeWS } = require('openai/realtime/ws');
const { RealtimeAgent, RealtimeSession } = require('@openai/agents/realtime');
const { understudy } = require('jest-understudy');

const TOOLS = [
  {
    type: 'function',
    name: 'lookup_order',
    parameters: { type: 'object', properties: { id: { type: 'number' } } },
  },
];
const HOURS = 'We open at nine and close at six, every day but Sunday.';

/** 16-bit PCM at 24 kHz: `ms` of a 440 Hz tone (speech, to a VAD) or of silence. */
const pcm = (ms, tone) => {
  const samples = (24000 * ms) / 1000;
  const out = Buffer.alloc(samples * 2);
  if (tone)
    for (let i = 0; i < samples; i++)
      out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)), i * 2);
  return out.toString('base64');
};

function open(session) {
  const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime' }, new OpenAI({ apiKey: 'sk-test' }));
  const ready = new Promise((resolve, reject) => {
    rt.socket.once('open', resolve);
    rt.socket.once('error', reject);
  }).then(() => rt.send({ type: 'session.update', session: { type: 'realtime', tools: TOOLS, ...session } }));
  return { rt, ready };
}

const typed = (rt, text) => {
  rt.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  });
  rt.send({ type: 'response.create' });
};

it('a voice session: a tool loop, an answer the user cuts off, then a spoken turn', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'Where is order 7?', turnIndex: 0 },
      response: { toolCalls: [{ name: 'lookup_order', arguments: '{"id":7}' }] },
    },
    {
      match: { userMessage: 'Where is order 7?', turnIndex: 1 },
      response: { content: 'Order 7 has shipped.' },
    },
    {
      match: { userMessage: 'Tell me about your hours' },
      response: { content: HOURS },
      chunkSize: 4,
      chunkDelay: 40,
    },
    { match: { userMessage: 'Stop, just tell me Sunday' }, response: { content: 'Closed on Sunday.' } },
  ]);
  const run = await understudy.run(async () => {
    // The app decides on interruptions: it cancels the answer and truncates it at what was played.
    const { rt, ready } = open({
      audio: {
        input: {
          transcription: { model: 'gpt-4o-mini-transcribe' },
          turn_detection: { type: 'server_vad', interrupt_response: false, create_response: false },
        },
      },
    });
    await ready;
    const transcripts = [];
    let played = 0;
    let item;
    let step = 'tool loop';
    await new Promise((resolve, reject) => {
      rt.on('error', reject);
      rt.on('response.output_audio.delta', (e) => {
        if (step !== 'hours') return;
        item = e.item_id;
        played += Buffer.from(e.delta, 'base64').length / 48; // ms of PCM16 at 24 kHz
        if (played === 160) rt.send({ type: 'input_audio_buffer.append', audio: pcm(200, true) });
      });
      rt.on('input_audio_buffer.speech_started', () => {
        rt.send({ type: 'response.cancel' });
        rt.send({
          type: 'conversation.item.truncate',
          item_id: item,
          content_index: 0,
          audio_end_ms: played,
        });
        // The user goes on talking, then stops: the server hears the end of the turn.
        rt.send({ type: 'input_audio_buffer.append', audio: pcm(600, false) });
      });
      rt.on('conversation.item.input_audio_transcription.completed', () => {
        step = 'sunday';
        rt.send({ type: 'response.create' });
      });
      rt.on('response.done', (e) => {
        const calls = e.response.output.filter((o) => o.type === 'function_call');
        for (const call of calls)
          rt.send({
            type: 'conversation.item.create',
            item: {
              type: 'function_call_output',
              call_id: call.call_id,
              output: JSON.stringify({ id: 7, status: 'shipped' }),
            },
          });
        if (calls.length > 0) return rt.send({ type: 'response.create' });
        const spoken = e.response.output.find((o) => o.type === 'message')?.content[0]?.transcript;
        transcripts.push(spoken);
        if (step === 'tool loop') {
          step = 'hours';
          typed(rt, 'Tell me about your hours');
        } else if (step === 'sunday') resolve();
      });
      typed(rt, 'Where is order 7?');
    });
    const closed = new Promise((resolve) => rt.socket.once('close', resolve));
    rt.close();
    await closed;
    return transcripts;
  });
  expect(run.output[0]).toBe('Order 7 has shipped.');
  expect(run.output.at(-1)).toBe('Closed on Sunday.');
  expect(run).toHaveCalledTool('lookup_order', { id: 7 });
  expect(run).toHaveFinalMessage('Closed on Sunday.');
});

it('a barge-in the server hears: the Agents SDK session is cut where the user spoke', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'Tell me about your hours' },
      response: { content: HOURS },
      chunkSize: 4,
      chunkDelay: 40,
    },
    { match: { userMessage: 'Stop, just tell me Sunday' }, response: { content: 'Closed on Sunday.' } },
  ]);
  const tone = new Int16Array(24000 * 0.2).map((_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)),
  );
  const silence = new Int16Array(24000 * 0.6);
  const run = await understudy.run(async () => {
    const session = new RealtimeSession(new RealtimeAgent({ name: 'hours', instructions: 'Answer.' }), {
      transport: 'websocket',
      model: 'gpt-realtime',
    });
    await session.connect({ apiKey: 'sk-test' });
    let spoke = false;
    session.on('audio', () => {
      if (spoke) return;
      spoke = true;
      session.sendAudio(tone.buffer);
      session.sendAudio(silence.buffer);
    });
    const said = new Promise((resolve) => {
      session.on('history_updated', (history) => {
        const last = history.at(-1);
        if (last?.type === 'message' && last.role === 'assistant' && last.status === 'completed')
          if (last.content[0]?.transcript === 'Closed on Sunday.') resolve(last.content[0].transcript);
      });
    });
    session.sendMessage('Tell me about your hours');
    const answer = await said;
    session.close();
    return answer;
  });
  expect(run).toHaveFinalMessage('Closed on Sunday.');
});

it('a socket dropped mid-answer: the careful agent fails its run', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'Where is order 7?' },
      response: { content: 'Order 7 has shipped.' },
      chunkSize: 4,
      truncateAfterChunks: 5,
    },
  ]);
  const run = await understudy.run(async () => {
    const { rt, ready } = open({ output_modalities: ['text'] });
    await ready;
    await new Promise((resolve, reject) => {
      rt.socket.on('close', (code) => reject(new Error(`the socket closed (${code})`)));
      rt.on('response.done', resolve);
      typed(rt, 'Where is order 7?');
    });
  });
  expect(run.terminalState).not.toBe('succeeded');
  expect(run.modelCalls[0].cut?.reason).toBe('truncated');
});
