/** Socket protocols are routed by the providers' base URLs, as requests are, then by path. */
import { describe, expect, it } from '@jest/globals';
import { ProviderRouter } from '../../../../src/providers/registry';
import type { SocketProtocol } from '../../../../src/sockets/protocol';
import { httpFormOf, SocketRouter } from '../../../../src/sockets/registry';

const fake = (protocol: string, provider: 'openai' | 'gemini', path: string): SocketProtocol => ({
  protocol,
  provider,
  handles: (p) => p === path,
  endpoints: [`GET ${path}`],
  open: () => ({ message() {}, closed() {} }),
});

describe('SocketRouter', () => {
  const router = new SocketRouter(new ProviderRouter({ openai: ['https://gateway.test/openai/v1'] }));

  it.each([
    ['wss://api.openai.com/v1/responses', '/responses'],
    ['wss://api.openai.com/v1/responses?model=gpt-4.1', '/responses'],
    ['https://api.openai.com/v1/responses', '/responses'],
    ['wss://gateway.test/openai/v1/responses', '/responses'],
  ])('serves %s with the Responses WebSocket mode', (url, path) => {
    const route = router.route(url);
    expect(route?.protocol.protocol).toBe('openai.responses.ws');
    expect(route?.target.path).toBe(path);
  });

  it.each([
    ['a provider path no socket protocol serves', 'wss://api.openai.com/v1/chat/completions'],
    ['another provider, whose base URL has no socket protocol', 'wss://api.anthropic.com/v1/responses'],
    ['a host no provider is at', 'wss://tracker.invalid/v1/responses'],
    ['below a base URL only by prefix', 'wss://api.openai.com/v1x/responses'],
  ])('serves nothing for %s', (_what, url) => {
    expect(router.route(url)).toBeUndefined();
  });

  it("picks the protocol of the URL's provider that handles the path", () => {
    const protocols = [fake('gemini.live', 'gemini', '/ws/live'), fake('openai.other', 'openai', '/other')];
    const own = new SocketRouter(
      new ProviderRouter(),
      protocols.map((p) => () => p),
    );
    expect(own.route('wss://api.openai.com/v1/other')?.protocol.protocol).toBe('openai.other');
    expect(own.route('wss://generativelanguage.googleapis.com/ws/live')?.protocol.protocol).toBe(
      'gemini.live',
    );
    expect(own.route('wss://api.openai.com/ws/live')).toBeUndefined();
  });

  it('reads ws(s) URLs in the http(s) form base URLs are listed in', () => {
    expect(httpFormOf('wss://a.test/x')).toBe('https://a.test/x');
    expect(httpFormOf('ws://a.test:8080/x')).toBe('http://a.test:8080/x');
    expect(httpFormOf('https://a.test/x')).toBe('https://a.test/x');
  });
});
