/** Which node:http(s) requests are WebSocket upgrades, and where they go: the `ws` package's skip msw. */
import { describe, expect, it } from '@jest/globals';
import { upgradeTarget } from '../../../../environment/network/sockets';

const UPGRADE = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13' };

describe('upgradeTarget', () => {
  it("reads the ws package's request options", () => {
    const options = {
      protocol: 'https:',
      hostname: 'api.openai.com',
      port: 443,
      path: '/v1/responses',
      headers: UPGRADE,
    };
    expect(upgradeTarget(true, [options], 'websocket')).toEqual({
      transport: 'websocket',
      host: 'api.openai.com',
      port: 443,
      protocol: 'https:',
      request: 'WebSocket wss://api.openai.com/v1/responses',
    });
  });

  it('reads a URL and options, with the default port of the module', () => {
    expect(
      upgradeTarget(
        false,
        ['http://127.0.0.1/socket?x=1', { headers: { upgrade: 'WebSocket' } }],
        'websocket',
      ),
    ).toMatchObject({
      host: '127.0.0.1',
      port: 80,
      protocol: 'http:',
      request: 'WebSocket ws://127.0.0.1/socket?x=1',
    });
  });

  it.each([
    ['a plain request', [{ hostname: 'api.openai.com', headers: { 'content-type': 'application/json' } }]],
    ['another upgrade', [{ hostname: 'api.openai.com', headers: { Upgrade: 'h2c' } }]],
    ['no options at all', []],
    ['a URL that does not parse', ['::not a url', { headers: UPGRADE }]],
  ])('is undefined for %s', (_what, args) => {
    expect(upgradeTarget(true, args, 'websocket')).toBeUndefined();
  });
});
