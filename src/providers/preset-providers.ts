/**
 * The provider presets the router serves (see ./presets for the URL shapes): Azure OpenAI and
 * Vertex AI on every resource and region host, OpenRouter at its public base, and the local
 * gateways (Ollama, its `/v1` API and its native one, and LiteLLM) only when the `providers`
 * option names them.
 */

import type { ProviderCodec, WireResponse } from './codec';
import { lazyProvider, type ProviderDefinition } from './definition';
import type { EmbeddingCodec } from './embedding-codec';
import { azurePath, optionalV1, type PathRewrite, rewritten, vertexPath } from './presets';

type Module<T> = () => T;
const openaiChat: Module<typeof import('./openai-chat')> = () => require('./openai-chat');
const openaiErrors: Module<typeof import('./openai-chat/errors')> = () => require('./openai-chat/errors');
const openaiResponses: Module<typeof import('./openai-responses')> = () => require('./openai-responses');
const gemini: Module<typeof import('./gemini')> = () => require('./gemini');
const openaiEmbeddings: Module<typeof import('./openai-embeddings')> = () => require('./openai-embeddings');
const ollama: Module<typeof import('./ollama')> = () => require('./ollama');

const openaiCodecs = () => [openaiChat().openaiChat, openaiResponses().openaiResponses];
const embeddingsAt = (rewrite?: PathRewrite) => () => {
  const codec = openaiEmbeddings().openaiEmbeddings;
  return [rewrite ? rewritten(codec, rewrite) : codec];
};
const openaiNotFound = (message: string) =>
  openaiErrors().encodeOpenAIError({ status: 404, type: 'invalid_request_error', message });

function preset(
  name: string,
  base: Pick<ProviderDefinition, 'id' | 'defaultBaseURLs' | 'hosts' | 'basesFrom'>,
  codecs: () => ProviderCodec[],
  notFound: (message: string) => WireResponse,
  embeddings?: () => EmbeddingCodec[],
): ProviderDefinition {
  return lazyProvider({ ...base, preset: name }, codecs, notFound, embeddings);
}

/** Always served: their hosts belong to the service, so nothing else could answer there. */
const HOSTED: ProviderDefinition[] = [
  preset(
    'azure',
    {
      id: 'openai',
      defaultBaseURLs: [],
      hosts: {
        origin:
          /^https:\/\/[a-z0-9][a-z0-9-]*\.(?:openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/,
        basePath: '/openai',
      },
    },
    () => openaiCodecs().map((c) => rewritten(c, azurePath)),
    openaiNotFound,
    embeddingsAt(azurePath),
  ),
  preset(
    'vertex',
    {
      id: 'gemini',
      defaultBaseURLs: [],
      hosts: {
        origin:
          /^https:\/\/(?:(?:[a-z0-9-]+-)?aiplatform\.googleapis\.com|aiplatform\.[a-z0-9-]+\.rep\.googleapis\.com)$/,
        basePath: '',
      },
    },
    () => [rewritten(gemini().geminiGenerateContent, vertexPath)],
    (message) => gemini().encodeGeminiError({ status: 404, type: 'NOT_FOUND', message }),
  ),
  preset(
    'openrouter',
    { id: 'openai', defaultBaseURLs: ['https://openrouter.ai/api/v1'] },
    openaiCodecs,
    openaiNotFound,
  ),
];

/** Ollama's server root, from the base URL of its `/v1` API (the option names that one). */
const ollamaRoot = (named: string[]) => [
  ...new Set(named.map((url) => url.replace(/\/+$/, '').replace(/\/v1$/, ''))),
];

/** Served when the option names them: they run on the developer's machine, at addresses others may use. */
const LOCAL: Record<string, () => ProviderDefinition[]> = {
  ollama: () => [
    preset('ollama', { id: 'openai', defaultBaseURLs: [] }, openaiCodecs, openaiNotFound, embeddingsAt()),
    // Its native API, `/api/chat`, `/api/generate` and `/api/embed`, at the server's root.
    preset(
      'ollama',
      { id: 'ollama', defaultBaseURLs: [], basesFrom: ollamaRoot },
      () => [ollama().ollamaChat, ollama().ollamaGenerate],
      (message) => ollama().encodeOllamaError({ status: 404, type: 'not_found_error', message }),
      () => [ollama().ollamaEmbed],
    ),
  ],
  litellm: () => [
    preset(
      'litellm',
      { id: 'openai', defaultBaseURLs: [] },
      () => openaiCodecs().map((c) => rewritten(c, optionalV1)),
      openaiNotFound,
      embeddingsAt(optionalV1),
    ),
  ],
};

/** The default base URLs of the local gateways, when the option turns one on without naming its URL. */
export const LOCAL_DEFAULTS: Record<string, string[]> = {
  ollama: ['http://localhost:11434/v1', 'http://127.0.0.1:11434/v1'],
  litellm: ['http://localhost:4000', 'http://127.0.0.1:4000', 'http://0.0.0.0:4000'],
};

export function presetProviders(extra: Partial<Record<string, string[]>>): ProviderDefinition[] {
  return [...HOSTED, ...Object.keys(LOCAL).flatMap((name) => (extra[name] ? LOCAL[name]() : []))];
}
