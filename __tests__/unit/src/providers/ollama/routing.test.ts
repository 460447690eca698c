/** Where Ollama is served: its `/v1` API at the option's base URL, its native API at the root above it. */
import { describe, expect, it } from '@jest/globals';
import { endpointsOf, ProviderRouter } from '../../../../../src/providers/registry';

const where = (router: ProviderRouter, url: string, method = 'POST') => {
  const t = router.route(url, method);
  return t && { provider: t.provider.id, preset: t.provider.preset, base: t.baseURL, path: t.path };
};

describe('Ollama routing', () => {
  it('serves both APIs at the default addresses, each path by the API that has it', () => {
    const router = new ProviderRouter({ ollama: ['http://localhost:11434/v1', 'http://127.0.0.1:11434/v1'] });
    expect(where(router, 'http://127.0.0.1:11434/api/chat')).toEqual({
      provider: 'ollama',
      preset: 'ollama',
      base: 'http://127.0.0.1:11434',
      path: '/api/chat',
    });
    expect(where(router, 'http://localhost:11434/api/generate')?.provider).toBe('ollama');
    expect(where(router, 'http://localhost:11434/api/embed')?.provider).toBe('ollama');
    expect(where(router, 'http://localhost:11434/v1/chat/completions')).toEqual({
      provider: 'openai',
      preset: 'ollama',
      base: 'http://localhost:11434/v1',
      path: '/chat/completions',
    });
  });

  it("takes the native API's root from the base URL the option names, with or without /v1", () => {
    const withV1 = new ProviderRouter({ ollama: ['http://gpu.invalid:11434/v1/'] });
    expect(where(withV1, 'http://gpu.invalid:11434/api/chat')?.base).toBe('http://gpu.invalid:11434');
    expect(where(withV1, 'http://gpu.invalid:11434/v1/chat/completions')?.provider).toBe('openai');
    const root = new ProviderRouter({ ollama: ['http://gpu.invalid:11434'] });
    expect(where(root, 'http://gpu.invalid:11434/api/chat')?.provider).toBe('ollama');
  });

  it('serves nothing of Ollama when the option is off, and names both APIs for a path neither has', () => {
    expect(new ProviderRouter().route('http://127.0.0.1:11434/api/chat')).toBeUndefined();
    const router = new ProviderRouter({ ollama: ['http://localhost:11434/v1'] });
    const target = router.route('http://localhost:11434/api/pull', 'POST');
    expect(target?.provider.id).toBe('ollama');
    expect(endpointsOf(target!.provider)).toEqual([
      'POST /api/chat',
      'POST /api/generate',
      'POST /api/embed',
      'POST /api/embeddings',
    ]);
  });
});
