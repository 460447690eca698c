// OpenAI Realtime from the installed package: whole voice-agent loops through the two real clients
// (the Agents SDK's RealtimeSession on its WebSocket transport, the openai SDK's OpenAIRealtimeWS),
// in this process and over the served port. Tests named "must fail" hold a wrong agent or
// assertion; the driver checks each fails with jest-understudy's message.
const { expect, it } = require('./runner-globals.cjs');
const { RealtimeAgent, RealtimeSession, OpenAIRealtimeWebSocket, tool } = require('@openai/agents/realtime');
const OpenAI = require('openai');
const { OpenAIRealtimeWS } = require('openai/realtime/ws');
const { z } = require('zod');
const { understudy, script } = require('jest-understudy');

const ASK = 'Please refund order 7';
const DONE = 'Order 7 is refunded.';

/** The fixtures of a refund by handoff: triage hands off, refunds calls its tool, then answers. */
const refundFixtures = () => [
  {
    match: { userMessage: ASK, turnIndex: 0 },
    response: { toolCalls: [{ name: 'transfer_to_refunds', arguments: '{}' }] },
  },
  {
    match: { userMessage: ASK, turnIndex: 1 },
    response: { toolCalls: [{ name: 'refund_order', arguments: '{"id":7}' }] },
  },
  { match: { userMessage: ASK, turnIndex: 2 }, response: { content: DONE } },
];

// ── The Agents SDK: a RealtimeAgent with a tool, reached by a handoff ─────────────────────────
function agents(refunded) {
  const refunds = new RealtimeAgent({
    name: 'refunds',
    handoffDescription: 'Refunds orders',
    instructions: 'You refund orders.',
    tools: [
      tool({
        name: 'refund_order',
        description: 'Refunds an order',
        parameters: z.object({ id: z.number() }),
        execute: async ({ id }) => {
          refunded.push(id);
          return { refunded: id };
        },
      }),
    ],
  });
  return new RealtimeAgent({ name: 'triage', instructions: 'Route the caller.', handoffs: [refunds] });
}

/** The voice agent: says the request, resolves with the assistant's last completed transcript. */
async function viaAgentsSdk(refunded, url) {
  const transport = url ? new OpenAIRealtimeWebSocket({ url }) : 'websocket';
  const session = new RealtimeSession(agents(refunded), { transport, model: 'gpt-realtime' });
  await session.connect({ apiKey: 'sk-test' });
  try {
    const said = new Promise((resolve, reject) => {
      session.on('error', (event) => reject(event.error ?? event));
      session.on('history_updated', (history) => {
        const last = history.at(-1);
        if (last?.type === 'message' && last.role === 'assistant' && last.status === 'completed') {
          const text = last.content[0]?.transcript ?? last.content[0]?.text;
          if (text) resolve(text);
        }
      });
    });
    session.sendMessage(ASK);
    return await said;
  } finally {
    session.close();
  }
}

it('the Agents SDK: a RealtimeSession runs a handoff and a tool, and the run has them and the transcript', async () => {
  understudy.model.use(refundFixtures());
  const refunded = [];
  const run = await understudy.run(() => viaAgentsSdk(refunded));
  expect(refunded).toEqual([7]);
  expect(run.output).toBe(DONE);
  expect(run).toHaveCalledToolSequence(['transfer_to_refunds', 'refund_order']);
  expect(run).toHaveCalledTool('refund_order', { id: 7 });
  expect(run).toHaveFinalMessage(DONE);
  expect(run).toHaveTerminalState('succeeded');
  expect(run.modelCalls.map((c) => c.protocol)).toEqual([
    'openai.realtime',
    'openai.realtime',
    'openai.realtime',
  ]);
});

it('the Agents SDK: the same session over the served port, credited to the run', async () => {
  understudy.model.use(refundFixtures());
  const served = await understudy.serve();
  const url = `${served.urls.openai.replace(/^http/, 'ws')}/realtime?model=gpt-realtime`;
  const refunded = [];
  const run = await understudy.run(() => viaAgentsSdk(refunded, url));
  expect(refunded).toEqual([7]);
  expect(run).toHaveCalledToolSequence(['transfer_to_refunds', 'refund_order']);
  expect(run).toHaveFinalMessage(DONE);
});

it('the Agents SDK must fail: the test expects lookup_order, the model called refund_order', async () => {
  understudy.model.use(refundFixtures());
  const run = await understudy.run(() => viaAgentsSdk([]));
  expect(run).toHaveCalledTool('lookup_order');
});

it('the Agents SDK: a barge-in cuts the answer where the user spoke, and the spoken turn is answered', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'Tell me about your hours' },
      response: { content: 'We open at nine and close at six, every day but Sunday.' },
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
    // The user starts talking as the first audio plays.
    session.on('audio', () => {
      if (spoke) return;
      spoke = true;
      session.sendAudio(tone.buffer);
      session.sendAudio(silence.buffer);
    });
    const said = new Promise((resolve) => {
      session.on('history_updated', (history) => {
        const last = history.at(-1);
        if (last?.type === 'message' && last.role === 'assistant' && last.status === 'completed') {
          if (last.content[0]?.transcript === 'Closed on Sunday.') resolve(last.content[0].transcript);
        }
      });
    });
    session.sendMessage('Tell me about your hours');
    const answer = await said;
    session.close();
    return answer;
  });
  const [first, second] = run.modelCalls;
  expect(first.cut?.reason).toBe('aborted');
  expect(first.response?.content?.length ?? 0).toBeLessThan(20);
  expect(second.conversation.messages.at(-1)).toEqual({ role: 'user', text: 'Stop, just tell me Sunday' });
  expect(run).toHaveFinalMessage('Closed on Sunday.');
});

// ── Node's global WebSocket, opened as a browser opens it (the key in a subprotocol) ──────────
it("Node's global WebSocket: a text turn, the key sent in a subprotocol", async () => {
  understudy.model.use(script().user('Say hi').replies('Hi there.'));
  const run = await understudy.run(async () => {
    const ws = new WebSocket('wss://api.openai.com/v1/realtime?model=gpt-realtime', [
      'realtime',
      'openai-insecure-api-key.sk-test-browser-0123456789',
    ]);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    const done = new Promise((resolve) => {
      ws.onmessage = (message) => {
        const event = JSON.parse(message.data);
        if (event.type === 'response.done') resolve(event.response);
      };
    });
    ws.send(
      JSON.stringify({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } }),
    );
    ws.send(
      JSON.stringify({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hi' }] },
      }),
    );
    ws.send(JSON.stringify({ type: 'response.create' }));
    const response = await done;
    ws.close();
    return { subprotocol: ws.protocol, text: response.output[0].content[0].text };
  });
  expect(run.output).toEqual({ subprotocol: 'realtime', text: 'Hi there.' });
  expect(run).toHaveFinalMessage('Hi there.');
});

// ── The openai SDK's OpenAIRealtimeWS, driving the documented events ──────────────────────────
const TOOLS = [
  {
    type: 'function',
    name: 'lookup_order',
    parameters: { type: 'object', properties: { id: { type: 'number' } } },
  },
];
const RESULT = { id: 7, status: 'shipped' };

function open(session) {
  const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime' }, new OpenAI({ apiKey: 'sk-test' }));
  const errors = [];
  rt.on('error', (error) => errors.push(error));
  const ready = new Promise((resolve, reject) => {
    rt.socket.once('open', resolve);
    rt.socket.once('error', reject);
  }).then(() => rt.send({ type: 'session.update', session: { type: 'realtime', tools: TOOLS, ...session } }));
  return { rt, errors, ready };
}

/**
 * A voice agent on OpenAIRealtimeWS: runs the tools the model calls and resolves with the last
 * spoken transcript. `onClose` is what it does when the socket is cut (a careful agent throws).
 */
async function voiceLoop(question, { onClose = 'throw' } = {}) {
  const { rt, errors, ready } = open({
    output_modalities: ['audio'],
    audio: { input: { turn_detection: null } },
  });
  await ready;
  let audioBytes = 0;
  try {
    return await new Promise((resolve, reject) => {
      rt.on('response.output_audio.delta', (e) => {
        audioBytes += Buffer.from(e.delta, 'base64').length;
      });
      rt.on('response.done', (e) => {
        if (errors.length > 0) return reject(errors[0]);
        const calls = e.response.output.filter((o) => o.type === 'function_call');
        for (const call of calls)
          rt.send({
            type: 'conversation.item.create',
            item: { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(RESULT) },
          });
        if (calls.length > 0) return rt.send({ type: 'response.create' });
        const spoken = e.response.output.find((o) => o.type === 'message')?.content[0]?.transcript;
        resolve({ transcript: spoken, audioBytes });
      });
      rt.socket.on('close', (code) => {
        if (onClose === 'throw') reject(new Error(`the socket closed (${code})`));
        else resolve({ transcript: 'OK', audioBytes });
      });
      rt.send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: question }] },
      });
      rt.send({ type: 'response.create' });
    });
  } finally {
    rt.close();
  }
}

it('the openai SDK: OpenAIRealtimeWS runs a tool loop and speaks the answer, its transcript alongside', async () => {
  understudy.model.use(
    script().user('Where is order 7?').callsTool('lookup_order', { id: 7 }).replies('Order 7 has shipped.'),
  );
  const run = await understudy.run(() => voiceLoop('Where is order 7?'));
  expect(run.output.transcript).toBe('Order 7 has shipped.');
  // 40 ms of PCM16 at 24 kHz a character.
  expect(run.output.audioBytes).toBe('Order 7 has shipped.'.length * 960 * 2);
  expect(run).toHaveCalledTool('lookup_order', { id: 7 });
  expect(run.toolCalls[0].result).toEqual(RESULT);
  expect(run).toHaveFinalMessage('Order 7 has shipped.');
  expect(run).toHaveTerminalState('succeeded');
});

/** 16-bit PCM at 24 kHz: `ms` of a 440 Hz tone (speech, to a VAD) or of silence. */
const pcm = (ms, tone) => {
  const samples = (24000 * ms) / 1000;
  const out = Buffer.alloc(samples * 2);
  if (tone)
    for (let i = 0; i < samples; i++)
      out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)), i * 2);
  return out.toString('base64');
};

it("the openai SDK: spoken input under server VAD is heard as the fixture's user turn and answered", async () => {
  understudy.model.use(script().user('What time do you open?').replies('We open at nine.'));
  const run = await understudy.run(async () => {
    const { rt, ready } = open({
      audio: {
        input: { transcription: { model: 'gpt-4o-mini-transcribe' }, turn_detection: { type: 'server_vad' } },
      },
    });
    await ready;
    const heard = new Promise((resolve) =>
      rt.on('conversation.item.input_audio_transcription.completed', (e) => resolve(e.transcript)),
    );
    const answered = new Promise((resolve) =>
      rt.on('response.output_audio_transcript.done', (e) => resolve(e.transcript)),
    );
    rt.send({ type: 'input_audio_buffer.append', audio: pcm(600, true) });
    rt.send({ type: 'input_audio_buffer.append', audio: pcm(600, false) });
    const result = { heard: await heard, answered: await answered };
    rt.close();
    return result;
  });
  expect(run.output).toEqual({ heard: 'What time do you open?', answered: 'We open at nine.' });
  expect(run).toHaveFinalMessage('We open at nine.');
});

/**
 * The user talks over a long answer. The app decides on interruptions (`interrupt_response:
 * false`): a careful agent cancels the response and truncates the item at what was played.
 */
async function bargeIn({ handle }) {
  const { rt, ready } = open({
    audio: {
      input: { turn_detection: { type: 'server_vad', interrupt_response: false, create_response: false } },
    },
  });
  await ready;
  let played = 0;
  let item;
  await new Promise((resolve) => {
    rt.on('response.output_audio.delta', (e) => {
      item = e.item_id;
      played += Buffer.from(e.delta, 'base64').length / 48; // ms of PCM16 at 24 kHz
      if (played === 160) rt.send({ type: 'input_audio_buffer.append', audio: pcm(200, true) });
    });
    rt.on('input_audio_buffer.speech_started', () => {
      if (!handle) return;
      rt.send({ type: 'response.cancel' });
      rt.send({ type: 'conversation.item.truncate', item_id: item, content_index: 0, audio_end_ms: played });
    });
    rt.on('response.done', resolve);
    rt.send({
      type: 'conversation.item.create',
      item: {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'Tell me about your hours' }],
      },
    });
    rt.send({ type: 'response.create' });
  });
  rt.close();
}

const longAnswer = () => [
  {
    match: { userMessage: 'Tell me about your hours' },
    response: { content: 'We open at nine and close at six, every day but Sunday.' },
    chunkSize: 4,
    chunkDelay: 40,
  },
];

it('the openai SDK: an interruption handled (cancel, truncate) leaves in the run only what the user heard', async () => {
  understudy.model.use(longAnswer());
  const run = await understudy.run(() => bargeIn({ handle: true }));
  expect(run.modelCalls[0].cut?.reason).toBe('aborted');
  expect(run.modelCalls[0].response?.content).toBe('We o');
});

it('the openai SDK must fail: an interruption not handled (the agent talks over the user)', async () => {
  understudy.model.use(longAnswer());
  const run = await understudy.run(() => bargeIn({ handle: false }));
  expect(run.modelCalls[0].cut?.reason).toBe('aborted');
});

it('the openai SDK must fail: a socket cut mid-answer the agent takes for an answer', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'Where is order 7?' },
      response: { content: 'Order 7 has shipped.' },
      chunkSize: 4,
      truncateAfterChunks: 5,
    },
  ]);
  const run = await understudy.run(() => voiceLoop('Where is order 7?', { onClose: 'swallow' }));
  expect(run.output.transcript).toBe('OK');
  expect(run).toHaveTerminalState('succeeded');
});

it('the openai SDK must fail: a session.update in the beta shape the GA API refuses', async () => {
  understudy.model.use(script().user('hi').replies('Hello.'));
  const { rt, errors } = open({});
  await new Promise((resolve) => rt.socket.once('open', resolve));
  rt.send({ type: 'session.update', session: { modalities: ['text', 'audio'], voice: 'alloy' } });
  await new Promise((resolve) => rt.on('event', (e) => e.type === 'error' && resolve()));
  rt.close();
  // The agent got the API's error event; the test fails for the breach whatever the agent does with it.
  expect(errors[0].message).toContain('session.type');
});
