/**
 * The in-process WebSocket carriers: a socket the agent opens to a provider host whose path a
 * socket protocol serves is answered here (the `ws` package over node:https, Node's global
 * `WebSocket`, the `undici` package's); one to any other path or host is refused, naming the URL.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import WebSocket from 'ws';

function opened(socket: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
}

function eventsUntilDone(socket: WebSocket): Promise<any[]> {
  const events: any[] = [];
  return new Promise((resolve, reject) => {
    socket.on('message', (data) => {
      const event = JSON.parse(String(data));
      events.push(event);
      if (event.type === 'response.completed' || event.type === 'error') resolve(events);
    });
    socket.once('close', (code) => reject(new Error(`closed ${code} after ${events.length} events`)));
  });
}

describe('the ws package', () => {
  it('opens wss://api.openai.com/v1/responses and gets the stream of a response.create', async () => {
    understudy.model.use(script().user('hello').replies('Hi there.'));
    const socket = new WebSocket('wss://api.openai.com/v1/responses', {
      headers: { Authorization: 'Bearer sk-test' },
    });
    await opened(socket);
    const done = eventsUntilDone(socket);
    socket.send(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input: 'hello' }));
    const events = await done;
    expect(events[0].type).toBe('response.created');
    expect(events.at(-1).response.output[0].content[0].text).toBe('Hi there.');
    socket.close();
    expect(understudy.model.calls).toHaveLength(1);
  });
});

/** The events of one response.create over a WHATWG WebSocket (Node's global one, undici's). */
function whatwgTurn(socket: globalThis.WebSocket, input: string): Promise<any[]> {
  const events: any[] = [];
  return new Promise((resolve, reject) => {
    socket.addEventListener('open', () =>
      socket.send(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input })),
    );
    socket.addEventListener('message', (message) => {
      const event = JSON.parse(String(message.data));
      events.push(event);
      if (event.type === 'response.completed' || event.type === 'error') resolve(events);
    });
    socket.addEventListener('close', (e) =>
      reject(new Error(`closed ${e.code} after ${events.length} events`)),
    );
    socket.addEventListener('error', () => reject(new Error('socket error')));
  });
}

describe("Node's global WebSocket", () => {
  it('is answered in process', async () => {
    understudy.model.use(script().user('from undici').replies('Global.'));
    const socket = new globalThis.WebSocket('wss://api.openai.com/v1/responses');
    const events = await whatwgTurn(socket, 'from undici');
    expect(events.at(-1).response.output[0].content[0].text).toBe('Global.');
    socket.close();
  });
});

describe("the undici package's WebSocket", () => {
  it('is answered in process', async () => {
    const { WebSocket: UndiciWebSocket } = await import('undici');
    understudy.model.use(script().user('from the package').replies('Package.'));
    const socket = new UndiciWebSocket(
      'wss://api.openai.com/v1/responses',
    ) as unknown as globalThis.WebSocket;
    const events = await whatwgTurn(socket, 'from the package');
    expect(events.at(-1).response.output[0].content[0].text).toBe('Package.');
    socket.close();
  });
});

describe('the served port', () => {
  it('takes a socket at the provider path, as another process would open it', async () => {
    understudy.model.use(script().user('over the port').replies('Served.'));
    const served = await understudy.serve();
    const url = `${served.urls.openai.replace(/^http/, 'ws')}/responses`;
    const socket = new WebSocket(url);
    await opened(socket);
    const done = eventsUntilDone(socket);
    socket.send(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input: 'over the port' }));
    const events = await done;
    expect(events.at(-1).response.output[0].content[0].text).toBe('Served.');
    socket.close(1000);
    await new Promise((resolve) => socket.once('close', resolve));
    expect(understudy.sockets.at(-1)).toMatchObject({
      url: 'wss://api.openai.com/v1/responses',
      protocol: 'openai.responses.ws',
      closeCode: 1000,
      closedBy: 'client',
    });
  });
});
