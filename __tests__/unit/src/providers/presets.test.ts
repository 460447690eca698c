import { describe, expect, it } from '@jest/globals';
import { azurePath, optionalV1, vertexPath } from '../../../../src/providers/presets';
import { ProviderRouter } from '../../../../src/providers/registry';

describe('provider presets: routing', () => {
  const router = new ProviderRouter({ ollama: ['http://localhost:11434/v1'] });
  const route = (url: string) => {
    const t = router.route(url);
    return t && { provider: t.provider.id, preset: t.provider.preset, base: t.baseURL, path: t.path };
  };

  it('serves every region of Bedrock, every Azure resource and every Vertex location, and nothing that only looks like them', () => {
    expect(route('https://bedrock-runtime.eu-central-1.amazonaws.com/model/x/converse')).toEqual({
      provider: 'bedrock',
      preset: undefined,
      base: 'https://bedrock-runtime.eu-central-1.amazonaws.com',
      path: '/model/x/converse',
    });
    expect(route('https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com/model/x/converse')?.provider).toBe(
      'bedrock',
    );
    expect(
      route('https://acme.openai.azure.com/openai/deployments/d/chat/completions?api-version=1'),
    ).toEqual({
      provider: 'openai',
      preset: 'azure',
      base: 'https://acme.openai.azure.com/openai',
      path: '/deployments/d/chat/completions',
    });
    expect(
      route(
        'https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/l/publishers/google/models/m:generateContent',
      )?.preset,
    ).toBe('vertex');
    expect(
      route('https://bedrock-runtime.us-east-1.amazonaws.com.evil.invalid/model/x/converse'),
    ).toBeUndefined();
    expect(route('https://acme.openai.azure.com.evil.invalid/openai/x')).toBeUndefined();
    expect(route('https://acme.openai.azure.com/other')).toBeUndefined();
    expect(router.serves('https://bedrock-runtime.ap-south-1.amazonaws.com')).toBe(true);
    expect(router.serves('https://bedrock.us-east-1.amazonaws.com')).toBe(false);
  });

  it('serves the local gateways only when the option names them', () => {
    expect(route('http://localhost:11434/v1/chat/completions')?.preset).toBe('ollama');
    expect(new ProviderRouter().route('http://localhost:11434/v1/chat/completions')).toBeUndefined();
    expect(route('https://openrouter.ai/api/v1/chat/completions')?.preset).toBe('openrouter');
  });
});

describe('provider presets: paths', () => {
  it('Azure: deployments name the model; the v1 paths are the OpenAI paths', () => {
    expect(azurePath('/deployments/gpt-4o%20prod/chat/completions')).toEqual({
      path: '/chat/completions',
      model: 'gpt-4o prod',
    });
    expect(azurePath('/v1/responses')).toEqual({ path: '/responses' });
    expect(azurePath('/responses')).toEqual({ path: '/responses' });
  });

  it('Vertex: project, location and publisher paths as the Gemini API paths', () => {
    expect(
      vertexPath(
        '/v1beta1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent',
      ),
    ).toEqual({
      path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    });
    expect(vertexPath('/v1/publishers/google/models/gemini-2.5-pro:generateContent')).toEqual({
      path: '/v1/models/gemini-2.5-pro:generateContent',
    });
    expect(vertexPath('/v1/projects/p/locations/l/endpoints/123:predict')).toBeUndefined();
  });

  it('LiteLLM: with or without /v1', () => {
    expect(optionalV1('/v1/chat/completions')).toEqual({ path: '/chat/completions' });
    expect(optionalV1('/chat/completions')).toEqual({ path: '/chat/completions' });
  });
});
