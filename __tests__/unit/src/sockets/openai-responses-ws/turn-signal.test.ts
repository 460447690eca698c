/**
 * A turn's request follows the socket's end only while the turn runs: a long-lived socket keeps no
 * listener per finished turn (each Request given the connection's signal would leave one on it
 * until that Request is collected, and every later turn and the close would walk them all).
 */
import { describe, expect, it } from '@jest/globals';
import { openaiResponsesWs } from '../../../../../src/sockets/openai-responses-ws';
import type { SocketCall, SocketPeer, SocketServices } from '../../../../../src/sockets/protocol';

const sse = (...types: string[]) =>
  types
    .map(
      (type) =>
        `event: ${type}\ndata: ${JSON.stringify({ type, response: { id: 'resp_1', output: [] } })}\n\n`,
    )
    .join('');

function open(respond: (call: SocketCall) => Promise<Response>) {
  const sent: string[] = [];
  const requests: SocketCall[] = [];
  const peer: SocketPeer = { send: (data) => sent.push(String(data)), close: () => {}, drop: () => {} };
  const services = {
    call: async (call: SocketCall) => {
      requests.push(call);
      return { kind: 'response', response: await respond(call) };
    },
  } as unknown as SocketServices;
  const opening = {
    url: new URL('wss://api.openai.com/v1/responses'),
    path: '/responses',
    header: () => null,
    headers: () => new Headers({ authorization: 'Bearer sk-test' }),
    protocols: [],
  };
  return { connection: openaiResponsesWs.open(opening, peer, services), sent, requests };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

describe('a turn and the socket it runs on', () => {
  it("a finished turn's request no longer follows the socket: closing it later aborts nothing", async () => {
    const { connection, sent, requests } = open(
      async () => new Response(sse('response.created', 'response.completed')),
    );
    for (let turn = 1; turn <= 3; turn++) {
      connection.message(
        JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input: `turn ${turn}` }),
      );
      await until(() => sent.length === turn * 2);
    }
    connection.closed(1000, '');
    expect(requests).toHaveLength(3);
    expect(requests.map((r) => r.signal.aborted)).toEqual([false, false, false]);
  });

  it('a turn still running when the socket closes has its request aborted', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { connection, requests } = open(
      (request) =>
        new Promise((_resolve, reject) => {
          started();
          request.signal.addEventListener('abort', () => reject(request.signal.reason));
        }),
    );
    connection.message(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input: 'hello' }));
    await running;
    connection.closed(1001, 'going away');
    expect(requests[0].signal.aborted).toBe(true);
  });
});
