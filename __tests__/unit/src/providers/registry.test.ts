import { describe, expect, it } from '@jest/globals';
import { endpointsOf, ProviderRouter } from '../../../../src/providers/registry';

const ids = (listed: Array<{ provider: { id: string }; baseURL: string }> | undefined) =>
  listed?.map((l) => `${l.provider.id} ${l.baseURL}`);

describe('routing requests to providers', () => {
  it('routes by the longest base URL when one provider is listed at a host', () => {
    const router = new ProviderRouter({ openai: ['https://proxy.test/v1'] });
    const target = router.route('https://proxy.test/v1/chat/completions?x=1');
    expect(target?.provider.id).toBe('openai');
    expect(target?.path).toBe('/chat/completions');
    expect(target?.query.get('x')).toBe('1');
    expect(target?.listed).toBeUndefined();
    expect(router.route('https://proxy.test/v2/chat/completions')).toBeUndefined();
  });

  it('routes a gateway host by path: each request goes to the provider that serves it', () => {
    // A LiteLLM-style proxy: the OpenAI SDK at /v1, the Anthropic SDK at the root (it adds /v1/messages).
    const router = new ProviderRouter({
      openai: ['http://gateway.test/v1'],
      anthropic: ['http://gateway.test'],
    });
    const messages = router.route('http://gateway.test/v1/messages');
    expect([messages?.provider.id, messages?.baseURL, messages?.path]).toEqual([
      'anthropic',
      'http://gateway.test',
      '/v1/messages',
    ]);
    const chat = router.route('http://gateway.test/v1/chat/completions');
    expect([chat?.provider.id, chat?.path]).toEqual(['openai', '/chat/completions']);
    expect(router.route('http://gateway.test/v1/responses')?.provider.id).toBe('openai');
    expect(router.route('http://gateway.test/v1/embeddings')?.provider.id).toBe('openai');
  });

  it('routes by path between a preset and a provider listed at one origin', () => {
    const router = new ProviderRouter({
      litellm: ['http://gateway.test'],
      anthropic: ['http://gateway.test'],
    });
    expect(router.route('http://gateway.test/v1/messages')?.provider.id).toBe('anthropic');
    const chat = router.route('http://gateway.test/v1/chat/completions');
    expect([chat?.provider.preset, chat?.path]).toEqual(['litellm', '/v1/chat/completions']);
  });

  it('names every provider listed at the URL when none serves the request', () => {
    const router = new ProviderRouter({
      openai: ['http://gateway.test/v1'],
      anthropic: ['http://gateway.test'],
    });
    const target = router.route('http://gateway.test/v1/audio/speech');
    expect(target?.provider.id).toBe('openai');
    expect(ids(target?.listed)).toEqual(['openai http://gateway.test/v1', 'anthropic http://gateway.test']);
    // One base URL listed for both: below it, the Anthropic SDK's path is /v1/v1/messages.
    const same = new ProviderRouter({ openai: ['http://gw.test/v1'], anthropic: ['http://gw.test/v1'] });
    expect(ids(same.route('http://gw.test/v1/messages')?.listed)).toEqual([
      'openai http://gw.test/v1',
      'anthropic http://gw.test/v1',
    ]);
    expect(same.route('http://gw.test/v1/v1/messages')?.provider.id).toBe('anthropic');
    // A GET is no provider's endpoint.
    expect(router.route('http://gateway.test/v1/messages', 'GET')?.listed).toHaveLength(2);
  });

  it('says what each provider serves below its base URL', () => {
    const router = new ProviderRouter();
    expect(endpointsOf(router.route('https://api.openai.com/v1/x')!.provider)).toEqual([
      'POST /chat/completions',
      'POST /responses',
      'POST /embeddings',
    ]);
    expect(endpointsOf(router.route('https://api.anthropic.com/v1/x')!.provider)).toEqual([
      'POST /v1/messages',
    ]);
  });
});
