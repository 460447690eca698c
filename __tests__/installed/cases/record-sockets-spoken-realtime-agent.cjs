// The voice agent of the spoken-turn recording cases (record-sockets-spoken-*.case.js): a
// RealtimeAgent with a tool, driven by the Agents SDK's RealtimeSession while its user speaks.
const { RealtimeAgent, RealtimeSession, OpenAIRealtimeWebSocket, tool } = require('@openai/agents/realtime');
const { z } = require('zod');
const { pcm } = require('./record-sockets-spoken-audio.cjs');

const RATE = 24000;
/** How long the user speaks: the driver changes it to speak a turn the recording does not cover. */
const SPOKEN_MS = Number(process.env.REC_SPOKEN_MS ?? 700);
const BASE = (process.env.REC_OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/^http/, 'ws');

function agent(looked) {
  return new RealtimeAgent({
    name: 'orders',
    instructions: 'You look orders up before you answer.',
    tools: [
      tool({
        name: 'lookup_order',
        description: 'Looks an order up by its number',
        parameters: z.object({ id: z.number() }),
        execute: async ({ id }) => {
          looked.push(id);
          return { id, status: 'shipped' };
        },
      }),
    ],
  });
}

/** `audio` as 100 ms ArrayBuffers, as a microphone streams it. */
function* frames(audio) {
  const size = (RATE / 10) * 2;
  for (let at = 0; at < audio.length; at += size) {
    const frame = audio.subarray(at, at + size);
    yield frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.length);
  }
}

/**
 * The voice agent (the Agents SDK's RealtimeSession): the user speaks 700 ms (server VAD ends the
 * turn, or the agent commits it and asks for the answer); resolves with the answer's text and
 * what the input transcription said it heard. `model` picks the stand-in's behaviour (`-deaf`:
 * it transcribes nothing).
 */
async function voiceAgent(looked, { vad, transcription = null, model = 'gpt-realtime' }) {
  const transport = new OpenAIRealtimeWebSocket({ url: `${BASE}/realtime?model=${model}` });
  const session = new RealtimeSession(agent(looked), {
    transport,
    model,
    config: {
      outputModalities: ['text'],
      audio: { input: { transcription, turnDetection: vad ? { type: 'server_vad' } : null } },
    },
  });
  const heard = [];
  await session.connect({ apiKey: process.env.OPENAI_API_KEY ?? 'sk-none' });
  const speak = () => {
    for (const frame of frames(pcm(SPOKEN_MS, RATE))) session.sendAudio(frame);
    if (vad) for (const frame of frames(pcm(600, RATE, false))) session.sendAudio(frame);
    else {
      transport.sendEvent({ type: 'input_audio_buffer.commit' });
      transport.sendEvent({ type: 'response.create' });
    }
  };
  try {
    return await new Promise((resolve, reject) => {
      session.on('error', (event) => reject(event.error?.error ?? event.error ?? event));
      session.on('transport_event', (event) => {
        if (event.type === 'conversation.item.input_audio_transcription.completed')
          heard.push(event.transcript);
        if (event.type === 'error') reject(new Error(event.error?.message ?? 'error event'));
      });
      session.on('history_updated', (history) => {
        const last = history.at(-1);
        if (last?.type !== 'message' || last.role !== 'assistant' || last.status !== 'completed') return;
        const text = last.content[0]?.transcript ?? last.content[0]?.text;
        if (!text) return;
        resolve({ answer: text, heard });
      });
      speak();
    });
  } finally {
    session.close();
  }
}

module.exports = { voiceAgent };
