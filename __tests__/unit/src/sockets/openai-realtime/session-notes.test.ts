/**
 * What a Realtime session notes for the trace's turns (src/sockets/openai-realtime/session.ts): the
 * user's typed and spoken input, the tool outputs the client adds, an answer cancelled and how much
 * of it the client played before it truncated it.
 */
import { describe, expect, it } from '@jest/globals';
import { RealtimeSessionMachine } from '../../../../../src/sockets/openai-realtime/session';
import type { SessionNote, SocketServices, TurnOutcome } from '../../../../../src/sockets/protocol';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0, reasoningTokens: 0 };
const reply = (content: string, shaping = {}): TurnOutcome => ({
  kind: 'reply',
  reply: { content, toolCalls: [], finishReason: 'stop', usage, model: 'gpt-realtime' },
  shaping,
  cut: () => undefined,
});

/** 16-bit PCM at 24 kHz: `ms` of a 440 Hz tone (speech, to a VAD) or of silence. */
const pcm = (ms: number, tone: boolean) => {
  const samples = (24000 * ms) / 1000;
  const out = Buffer.alloc(samples * 2);
  if (tone)
    for (let i = 0; i < samples; i++)
      out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)), i * 2);
  return out.toString('base64');
};

describe("OpenAI Realtime: what a session notes for the trace's turns", () => {
  it('notes the typed turn, the tool output, the cancel and the truncation, then the spoken turn', async () => {
    const notes: Array<Omit<SessionNote, 'turn'> & { turn?: string }> = [];
    const events: Array<Record<string, any>> = [];
    const outcomes = [reply('We open at nine and close at six.', { chunkSize: 4, chunkDelay: 20 })];
    const services: SocketServices = {
      answer: async () => outcomes.shift() ?? reply('Closed on Sunday.'),
      refused() {},
      call: async () => undefined,
      heard: () => 'Stop',
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      note: (note) => notes.push({ ...note, turn: 'turn' in note ? typeof note.turn : undefined }),
    };
    const session = new RealtimeSessionMachine(
      'gpt-realtime',
      { send: (data) => events.push(JSON.parse(String(data))), close() {}, drop() {} },
      services,
    );
    const send = (event: Record<string, unknown>) => session.message(JSON.stringify(event));
    const until = async (type: string) => {
      for (let i = 0; i < 200 && !events.some((e) => e.type === type); i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      return events.find((e) => e.type === type)!;
    };
    send({
      type: 'session.update',
      session: { type: 'realtime', audio: { input: { turn_detection: null } } },
    });
    send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' },
    });
    send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Your hours?' }] },
    });
    send({ type: 'response.create' });
    const delta = await until('response.output_audio.delta');
    send({ type: 'response.cancel' });
    send({ type: 'conversation.item.truncate', item_id: delta.item_id, content_index: 0, audio_end_ms: 160 });
    send({ type: 'input_audio_buffer.append', audio: pcm(200, true) });
    send({ type: 'input_audio_buffer.commit' });
    expect(notes).toEqual([
      { kind: 'tool output', callId: 'call_1', output: '{"ok":true}', turn: undefined },
      { kind: 'user', via: 'text', text: 'Your hours?', turn: undefined },
      { kind: 'interrupted', by: 'client', turn: 'object' },
      { kind: 'truncated', heardMs: 160, heardChars: 4, ofChars: 33, turn: 'object' },
      { kind: 'user', via: 'audio', text: 'Stop', turn: undefined },
    ]);
  });
});
