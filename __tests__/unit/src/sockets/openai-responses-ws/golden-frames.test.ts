/**
 * The frames a Responses WebSocket turn sends, byte for byte, on fixtures of every kind of turn
 * (text, tool calls, a chained turn, a stream error mid-response, a truncated and a dropped
 * stream, a malformed chunk, an unmatched call): the socket serves the events the SSE encoder
 * makes, whatever way they reach it. golden-frames.json holds them as the HTTP pipeline's SSE
 * stream cut into events sent them.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import WebSocket from 'ws';

const GOLDEN: Record<string, { frames: string[]; close?: number }> = JSON.parse(
  readFileSync(join(__dirname, 'golden-frames.json'), 'utf8'),
);
const golden = (name: string, actual: { frames: string[]; close?: number }) =>
  expect(actual).toEqual(GOLDEN[name]);
const TOOLS = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false },
];
/** The events a turn ends with (`truncated` marks a turn that has none: the test's own field, not sent). */
const TERMINAL = ['response.completed', 'response.failed', 'response.incomplete', 'error'];

/** Every frame of the turns `events` start, in order, and the close code if the socket ended. */
async function framesOf(
  events: Array<Record<string, unknown> | ((frames: string[]) => Record<string, unknown>)>,
): Promise<{ frames: string[]; close?: number }> {
  const socket = new WebSocket('wss://api.openai.com/v1/responses', {
    headers: { Authorization: 'Bearer sk-test' },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const frames: string[] = [];
  let close: number | undefined;
  let ends = 0;
  let wake = () => {};
  socket.on('message', (data) => {
    frames.push(String(data));
    if (TERMINAL.includes(typeOf(String(data)) as string)) ends++;
    wake();
  });
  const closed = new Promise<void>((resolve) =>
    socket.once('close', (code) => {
      close = code;
      resolve();
      wake();
    }),
  );
  let awaited = 0;
  for (const event of events) {
    const { truncated, ...body } = typeof event === 'function' ? event(frames) : event;
    socket.send(JSON.stringify({ type: 'response.create', ...body }));
    // A turn that ends with no terminal event (a truncated stream): the next one is queued behind it.
    if (truncated === true) continue;
    awaited++;
    while (ends < awaited && close === undefined) await new Promise<void>((resolve) => (wake = resolve));
    if (close !== undefined) break;
  }
  if (close === undefined) {
    socket.close(1000);
    await closed;
    return { frames };
  }
  return { frames, close };
}

/** An event's type; a damaged frame (the malformed fault) has none. */
function typeOf(frame: string): string | undefined {
  try {
    return JSON.parse(frame).type;
  } catch {
    return undefined;
  }
}

const turn = (input: unknown, more: Record<string, unknown> = {}) => ({ model: 'gpt-4.1', input, ...more });

describe('the frames of a Responses WebSocket turn', () => {
  it('a text reply', async () => {
    understudy.model.use([
      { match: { userMessage: 'hello' }, response: { content: 'Hello there, friend.' } },
    ]);
    golden('text', await framesOf([turn('hello')]));
  });

  it('a tool loop, chained by previous_response_id on a response not stored', async () => {
    understudy.model.use(
      script().user('Weather?').callsTool('get_weather', { city: 'Paris' }).replies('Sunny in Paris.'),
    );
    const first = await framesOf([turn('Weather?', { tools: TOOLS, store: false })]);
    golden('toolCall', first);
  });

  it('two turns on one socket: the second chains on the first (not stored)', async () => {
    understudy.model.use(
      script().user('Weather?').callsTool('get_weather', { city: 'Paris' }).replies('Sunny in Paris.'),
    );
    const frames = await framesOf([
      turn('Weather?', { tools: TOOLS, store: false }),
      (sent) => {
        const { response } = JSON.parse(sent.at(-1) as string);
        return turn(
          [{ type: 'function_call_output', call_id: response.output[0].call_id, output: '{"sky":"clear"}' }],
          {
            tools: TOOLS,
            store: false,
            previous_response_id: response.id,
          },
        );
      },
    ]);
    golden('chained', frames);
  });

  it('a stream error mid-response', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'fail' },
        response: {
          content: 'This will not finish.',
          chunkSize: 4,
          streamError: { message: 'The server is overloaded.', afterChunks: 3 },
        },
      },
    ]);
    golden('streamError', await framesOf([turn('fail')]));
  });

  it('a truncated stream, then a turn after it', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'short' },
        response: { content: 'Cut short here.', chunkSize: 4, truncateAfterChunks: 4 },
      },
      { match: { userMessage: 'again' }, response: { content: 'Whole.' } },
    ]);
    // The truncated stream has no terminal event: the next turn's frames follow it on the socket.
    const truncated = await framesOf([turn('short', { truncated: true }), turn('again')]);
    golden('truncated', truncated);
  });

  it('a disconnect drops the socket after part of the stream', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'cut' },
        response: { content: 'Cut off half way through.', chunkSize: 4, disconnect: true },
      },
    ]);
    golden('disconnect', await framesOf([turn('cut')]));
  });

  it('a malformed chunk', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'bad' },
        response: { content: 'Some words to damage.', chunkSize: 4, malformed: 2 },
      },
    ]);
    golden('malformed', await framesOf([turn('bad')]));
  });

  it('an error fixture and an unmatched call: the error event, the socket open', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'limit' },
        response: { error: { status: 429, type: 'rate_limit_error', message: 'Slow down.' } },
      },
    ]);
    const frames = await framesOf([turn('limit'), turn('nothing matches this')]);
    expect(understudy.model.acceptUnmatched()).toHaveLength(1);
    golden('errors', frames);
  });
});
