/** What the carriers share: reading an upgrade's headers and subprotocols, naming its URL. */
import type http from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { offeredProtocols, plainHeaders, wsFormOf } from '../../../../src/sockets/carrier';

describe('the upgrade, read', () => {
  it('offeredProtocols: Sec-WebSocket-Protocol values in order, blanks dropped', () => {
    expect(offeredProtocols('realtime, openai-insecure-api-key.sk ,,x')).toEqual([
      'realtime',
      'openai-insecure-api-key.sk',
      'x',
    ]);
    expect(offeredProtocols(['a', 'b, c'])).toEqual(['a', 'b', 'c']);
    expect(offeredProtocols(undefined)).toEqual([]);
  });

  it('plainHeaders: plain data by lower-case name, repeated ones joined', () => {
    const req = { headers: { authorization: 'Bearer sk', 'x-many': ['a', 'b'], absent: undefined } };
    expect(plainHeaders(req as unknown as http.IncomingMessage)).toEqual({
      authorization: 'Bearer sk',
      'x-many': 'a, b',
    });
  });

  it('wsFormOf: http(s) URLs as the ws(s) URLs a client opened', () => {
    expect(wsFormOf('https://api.openai.com/v1/responses')).toBe('wss://api.openai.com/v1/responses');
    expect(wsFormOf('http://127.0.0.1:1/x')).toBe('ws://127.0.0.1:1/x');
    expect(wsFormOf('wss://a.test/')).toBe('wss://a.test/');
  });
});
