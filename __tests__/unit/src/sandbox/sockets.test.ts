/** The file's WebSockets: routed to their protocol, noted per test, closed when the file ends. */
import { describe, expect, it } from '@jest/globals';
import { ProviderRouter } from '../../../../src/providers/registry';
import type { FileRequests } from '../../../../src/sandbox/requests';
import { FileSockets } from '../../../../src/sandbox/sockets';
import type { SocketPeer } from '../../../../src/sockets/protocol';

const requests = {
  router: new ProviderRouter(),
  socketServices: () => ({ request: async () => undefined, answer: () => new Promise(() => {}) }),
} as unknown as FileRequests;
const offer = (url: string) => ({ url, headers: { authorization: 'Bearer sk' }, protocols: [] });

function client() {
  const closes: Array<[number, string | undefined]> = [];
  const peer: SocketPeer = {
    send() {},
    close: (code, reason) => void closes.push([code, reason]),
    drop() {},
  };
  return { peer, closes };
}

describe('FileSockets', () => {
  it('accepts a socket a protocol serves, and nothing else', () => {
    const sockets = new FileSockets(requests);
    expect(sockets.accept(offer('wss://api.openai.com/v1/responses'))?.protocol).toBe('openai.responses.ws');
    expect(sockets.accept(offer('wss://api.openai.com/v1/realtime-nope'))).toBeUndefined();
    expect(sockets.log).toEqual([]);
  });

  it('notes each connection with how it closed, per test', () => {
    const sockets = new FileSockets(requests);
    const connection = sockets.accept(offer('https://api.openai.com/v1/responses'))!.open(client().peer);
    expect(sockets.log).toEqual([
      { url: 'wss://api.openai.com/v1/responses', protocol: 'openai.responses.ws' },
    ]);
    connection.closed(1000, '');
    expect(sockets.log[0]).toMatchObject({ closeCode: 1000, closedBy: 'client' });
    sockets.testFinished();
    expect(sockets.log).toEqual([]);
  });

  it('closes what is still open when the file ends, with 1001', () => {
    const sockets = new FileSockets(requests);
    const open = client();
    const closed = client();
    sockets.accept(offer('wss://api.openai.com/v1/responses'))!.open(open.peer);
    sockets.accept(offer('wss://api.openai.com/v1/responses'))!.open(closed.peer).closed(1000, '');
    const records = sockets.log;
    sockets.testFinished();
    sockets.fileFinished();
    expect(open.closes).toEqual([[1001, "jest-understudy: the test file's tests are done"]]);
    expect(closed.closes).toEqual([]);
    expect(records[0]).toMatchObject({ closeCode: 1001, closedBy: 'file end' });
  });
});
