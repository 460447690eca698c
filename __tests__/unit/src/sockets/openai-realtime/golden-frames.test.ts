/**
 * The frames a Realtime session sends, byte for byte, across turns of every kind (typed text, a
 * tool call and its output, audio out, a spoken turn, a cancelled answer and its truncation, a
 * stream error, a malformed chunk, the items read back): golden-frames.json holds them as the
 * session sent them before its send path was made cheaper.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { RealtimeSessionMachine } from '../../../../../src/sockets/openai-realtime/session';
import type { SocketServices, TurnOutcome } from '../../../../../src/sockets/protocol';

const GOLDEN: Record<string, string[]> = JSON.parse(
  readFileSync(join(__dirname, 'golden-frames.json'), 'utf8'),
);

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0, reasoningTokens: 0 };
const reply = (
  content: string | null,
  shaping = {},
  toolCalls: Array<{ id: string; name: string; arguments: string }> = [],
  more = {},
): TurnOutcome => ({
  kind: 'reply',
  reply: {
    content,
    toolCalls,
    finishReason: toolCalls.length ? 'tool_calls' : 'stop',
    usage,
    model: 'gpt-realtime',
  },
  shaping,
  cut: () => undefined,
  ...more,
});

/** 16-bit PCM at 24 kHz: `ms` of a 440 Hz tone. */
const pcm = (ms: number) => {
  const samples = (24000 * ms) / 1000;
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)), i * 2);
  return out.toString('base64');
};

function open(outcomes: TurnOutcome[], onFrame: (frame: string, frames: string[]) => void = () => {}) {
  const frames: string[] = [];
  const services: SocketServices = {
    answer: async () => outcomes.shift() ?? reply('Nothing more.'),
    refused() {},
    call: async () => undefined,
    heard: () => 'What time is it?',
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
  };
  const session = new RealtimeSessionMachine(
    'gpt-realtime',
    {
      send: (data) => {
        frames.push(String(data));
        onFrame(String(data), frames);
      },
      close() {},
      drop: () => frames.push('<drop>'),
    },
    services,
  );
  const send = (event: Record<string, unknown>) => session.message(JSON.stringify(event));
  const done = async (count: number) => {
    for (let i = 0; i < 400 && frames.filter((f) => f.includes('"type":"response.done"')).length < count; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { frames, send, done };
}

const userText = (text: string) => ({
  type: 'conversation.item.create',
  item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
});

describe('the frames of a Realtime session', () => {
  it('text, a tool call and its output, and the items read back', async () => {
    const { frames, send, done } = open([
      reply('Let me check.', { chunkSize: 5 }, [
        { id: 'call_1', name: 'get_time', arguments: '{"tz":"UTC"}' },
      ]),
      reply('It is noon.', { chunkSize: 4 }),
    ]);
    send({
      type: 'session.update',
      session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
    });
    send(userText('What time is it?'));
    send({ type: 'response.create' });
    await done(1);
    const call = frames
      .map((f) => JSON.parse(f))
      .find((e) => e.type === 'response.output_item.done' && e.item.type === 'function_call');
    send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: 'call_1', output: '{"time":"12:00"}' },
    });
    send({ type: 'response.create' });
    await done(2);
    send({ type: 'conversation.item.retrieve', item_id: call.item.id });
    const text = frames
      .map((f) => JSON.parse(f))
      .find((e) => e.type === 'response.output_item.done' && e.item.type === 'message');
    send({ type: 'conversation.item.retrieve', item_id: text.item.id });
    expect(frames).toEqual(GOLDEN.textAndTools);
  });

  it('audio out, a spoken turn, a cancel and a truncation', async () => {
    // The client cancels as the answer's third audio chunk arrives (before the next is due), and
    // truncates what it played of it.
    let itemId: string | undefined;
    const { frames, send, done } = open(
      [
        reply('It is a quarter past twelve.', { chunkSize: 6 }),
        reply('A long answer that the user will talk over, chunk by chunk.', {
          chunkSize: 6,
          chunkDelay: 20,
        }),
      ],
      (frame, all) => {
        if (
          !frame.includes('output_audio.delta') ||
          all.filter((f) => f.includes('output_audio.delta')).length !== 8
        )
          return;
        itemId = JSON.parse(frame).item_id;
        queueMicrotask(() => {
          send({ type: 'response.cancel' });
          send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 120 });
        });
      },
    );
    send({
      type: 'session.update',
      session: { type: 'realtime', audio: { input: { turn_detection: null } } },
    });
    send({ type: 'input_audio_buffer.append', audio: pcm(200) });
    send({ type: 'input_audio_buffer.commit' });
    send({ type: 'response.create' });
    await done(1);
    send(userText('Tell me more.'));
    send({ type: 'response.create' });
    await done(2);
    send({ type: 'conversation.item.retrieve', item_id: itemId });
    expect(frames).toEqual(GOLDEN.audio);
  });

  it('a stream error, a malformed chunk and a truncated answer', async () => {
    const { frames, send, done } = open([
      reply('This fails midway.', { chunkSize: 4 }, [], {
        streamError: { message: 'The server is overloaded.' },
      }),
      reply('One chunk of this is damaged.', { chunkSize: 4, malformed: true }),
      reply('Cut off here.', { chunkSize: 4, truncateAfterChunks: 5 }),
    ]);
    send({
      type: 'session.update',
      session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
    });
    for (let turn = 1; turn <= 3; turn++) {
      send(userText(`Turn ${turn}`));
      send({ type: 'response.create' });
      if (turn < 3) await done(turn);
    }
    for (let i = 0; i < 400 && !frames.includes('<drop>'); i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(frames).toEqual(GOLDEN.faults);
  });
});
