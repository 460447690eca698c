/**
 * The Responses API's WebSocket mode on the wire: each response.create is one streamed POST
 * /responses through the HTTP pipeline, its events one message each; continuation by
 * previous_response_id with only the new items; the store rules; the error event.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import WebSocket from 'ws';
import { getRuntime } from '../../../../../src/sandbox/runtime';

const URL = 'wss://api.openai.com/v1/responses';
const TOOLS = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false },
  { type: 'function', name: 'get_time', parameters: { type: 'object', properties: {} }, strict: false },
];

interface Connection {
  /** Sends one event and resolves with the events up to the turn's end (completed, failed, error). */
  turn(event: Record<string, unknown>): Promise<any[]>;
  send(text: string): Promise<any[]>;
  closed: Promise<number>;
  socket: WebSocket;
}

async function connect(): Promise<Connection> {
  const socket = new WebSocket(URL, { headers: { Authorization: 'Bearer sk-test' } });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let events: any[] = [];
  let done: ((events: any[]) => void) | undefined;
  socket.on('message', (data) => {
    const event = JSON.parse(String(data));
    events.push(event);
    if (['response.completed', 'response.failed', 'response.incomplete', 'error'].includes(event.type)) {
      const finished = events;
      events = [];
      done?.(finished);
    }
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  const send = (text: string) =>
    new Promise<any[]>((resolve, reject) => {
      done = resolve;
      closed.then((code) => reject(new Error(`closed with ${code} after ${events.length} events`)));
      socket.send(text);
    });
  return { turn: (event) => send(JSON.stringify(event)), send, closed, socket };
}

const completed = (events: any[]) => {
  const last = events.at(-1);
  if (last.type !== 'response.completed') throw new Error(`the turn ended with ${JSON.stringify(last)}`);
  return last.response;
};

describe('a tool loop on one socket', () => {
  it.each([
    ['stored', true],
    ['not stored (the connection keeps the latest response)', false],
  ])('chains by previous_response_id with only the new items: %s', async (_what, store) => {
    understudy.model.use(
      script()
        .user('What is the weather, and the time?')
        .callsTool('get_weather', { city: 'Paris' })
        .callsTool('get_time')
        .replies('Sunny, and it is noon.'),
    );
    const connection = await connect();
    const base = { model: 'gpt-4.1', tools: TOOLS, store };
    let response = completed(
      await connection.turn({
        type: 'response.create',
        ...base,
        input: 'What is the weather, and the time?',
      }),
    );
    const names: string[] = [];
    while (response.output.some((item: any) => item.type === 'function_call')) {
      const calls = response.output.filter((item: any) => item.type === 'function_call');
      names.push(...calls.map((c: any) => c.name));
      const events = await connection.turn({
        type: 'response.create',
        ...base,
        previous_response_id: response.id,
        input: calls.map((c: any) => ({ type: 'function_call_output', call_id: c.call_id, output: '"ok"' })),
      });
      expect(events.map((e) => e.type)).toContain('response.output_item.added');
      response = completed(events);
      expect(response.previous_response_id).toBeTruthy();
    }
    expect(names).toEqual(['get_weather', 'get_time']);
    expect(response.output_text ?? response.output[0].content[0].text).toBe('Sunny, and it is noon.');
    expect(understudy.model.calls).toHaveLength(3);
    connection.socket.close(1000);
    expect(await connection.closed).toBe(1000);
    expect(understudy.sockets.at(-1)).toMatchObject({ protocol: 'openai.responses.ws', closeCode: 1000 });
  });

  it('refuses a chain from a response that was not stored and is not the latest on this connection', async () => {
    understudy.model.use([
      { match: { userMessage: 'one' }, response: { content: 'First.' } },
      { match: { userMessage: 'two' }, response: { content: 'Second.' } },
    ]);
    const connection = await connect();
    const first = completed(
      await connection.turn({ type: 'response.create', model: 'gpt-4.1', store: false, input: 'one' }),
    );
    completed(
      await connection.turn({ type: 'response.create', model: 'gpt-4.1', store: false, input: 'two' }),
    );
    const events = await connection.turn({
      type: 'response.create',
      model: 'gpt-4.1',
      store: false,
      previous_response_id: first.id,
      input: 'three',
    });
    expect(events).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({ code: 'previous_response_not_found' }),
      }),
    ]);
    // The agent's chain breaks the API's rules: the test fails as it would over HTTP.
    const runtime = (globalThis as any)[Symbol.for('jest-understudy.runtime')];
    expect(runtime.context.takeFailures().map((f: { code: string }) => f.code)).toEqual(['CONTRACT_BREACH']);
    // The socket stays open after an error event.
    expect(connection.socket.readyState).toBe(WebSocket.OPEN);
    connection.socket.close(1000);
  });
});

describe('events the socket does not take', () => {
  it.each([
    ['a message that is not JSON', 'not json'],
    ['an event of another type', JSON.stringify({ type: 'session.update' })],
    [
      'background, which WebSocket mode does not support',
      JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input: 'x', background: true }),
    ],
  ])('%s gets an error event and the socket stays open', async (_what, text) => {
    const connection = await connect();
    const events = await connection.send(text);
    expect(events).toEqual([expect.objectContaining({ type: 'error', status: 400 })]);
    expect(connection.socket.readyState).toBe(WebSocket.OPEN);
    connection.socket.close(1000);
    expect(understudy.model.calls).toHaveLength(0);
  });
});

describe('faults mid-stream', () => {
  it('a stream error ends the turn with the response.failed event the SSE stream ends with', async () => {
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
    const connection = await connect();
    const events = await connection.turn({ type: 'response.create', model: 'gpt-4.1', input: 'fail' });
    expect(events.at(-1)).toMatchObject({
      type: 'response.failed',
      response: { error: { message: 'The server is overloaded.' } },
    });
    connection.socket.close(1000);
  });

  it('a disconnect drops the socket (1006) after part of the stream', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'cut' },
        response: { content: 'Cut off half way through.', chunkSize: 4, disconnect: true },
      },
    ]);
    const connection = await connect();
    await expect(
      connection.turn({ type: 'response.create', model: 'gpt-4.1', input: 'cut' }),
    ).rejects.toThrow(/closed with 1006/);
    expect(understudy.sockets.at(-1)).toMatchObject({ closeCode: 1006, closedBy: 'server' });
    expect(understudy.model.calls[0].cut).toMatchObject({ reason: 'disconnected' });
  });
});

describe('a client that goes away', () => {
  it('closing mid-stream cuts the call where the events stopped reaching it', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'slow' },
        response: { content: 'A long answer the client will not wait for.', chunkSize: 4, chunkDelay: 20 },
      },
    ]);
    const connection = await connect();
    let seen = 0;
    connection.socket.on('message', () => {
      if (++seen === 5) connection.socket.close(1000);
    });
    await expect(
      connection.turn({ type: 'response.create', model: 'gpt-4.1', input: 'slow' }),
    ).rejects.toThrow(/closed with 1000/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [call] = understudy.model.calls;
    expect(call.cut).toMatchObject({ reason: 'aborted', of: expect.any(Number) });
    expect(call.cut!.delivered).toBeLessThan(call.cut!.of as number);
  });
});

describe("Responses WebSocket mode: the session in the test's trace", () => {
  it('a replayed history is not a turn, its latest user message is; tool outputs continue the turn; its calls are linked', async () => {
    understudy.model.use([
      ...script().user('And in Paris?').callsTool('get_weather', { city: 'Paris' }).replies('Sunny.').build(),
    ]);
    const c = await connect();
    const first = await c.turn({
      type: 'response.create',
      model: 'gpt-4.1',
      tools: TOOLS,
      input: [
        { role: 'user', content: 'Weather in Rome?' },
        { role: 'assistant', content: 'Rainy.' },
        { role: 'user', content: 'And in Paris?' },
      ],
    });
    const response = first.find((e) => e.type === 'response.completed').response;
    const call = response.output.find((o: any) => o.type === 'function_call');
    await c.turn({
      type: 'response.create',
      model: 'gpt-4.1',
      tools: TOOLS,
      previous_response_id: response.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }],
    });
    c.socket.close();
    await c.closed;
    for (let i = 0; i < 50 && !getRuntime().testEvidence().sessions?.[0]?.closedBy; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const [session] = getRuntime().testEvidence().sessions ?? [];
    expect(session).toMatchObject({
      protocol: 'openai.responses.ws',
      url: 'wss://api.openai.com/v1/responses',
      closedBy: 'client',
    });
    expect(session.turns).toHaveLength(1);
    expect(session.turns[0]).toMatchObject({
      user: { via: 'text', text: 'And in Paris?' },
      assistant: 'Sunny.',
      modelCalls: understudy.model.calls.map((c) => c.index),
      toolCalls: [{ name: 'get_weather', output: '{"sky":"sunny"}', at: 0 }],
    });
  });
});
