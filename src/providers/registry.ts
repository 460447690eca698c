import { lazyProvider, type ProviderDefinition } from './definition';
import { presetProviders } from './preset-providers';

type Module<T> = () => T;
const openaiChat: Module<typeof import('./openai-chat')> = () => require('./openai-chat');
const openaiErrors: Module<typeof import('./openai-chat/errors')> = () => require('./openai-chat/errors');
const openaiResponses: Module<typeof import('./openai-responses')> = () => require('./openai-responses');
const anthropic: Module<typeof import('./anthropic-messages')> = () => require('./anthropic-messages');
const gemini: Module<typeof import('./gemini')> = () => require('./gemini');
const bedrock: Module<typeof import('./bedrock-converse')> = () => require('./bedrock-converse');
const openaiEmbeddings: Module<typeof import('./openai-embeddings')> = () => require('./openai-embeddings');
const geminiEmbeddings: Module<typeof import('./gemini-embeddings')> = () => require('./gemini-embeddings');

export const PROVIDERS: ProviderDefinition[] = [
  lazyProvider(
    { id: 'openai', defaultBaseURLs: ['https://api.openai.com/v1'] },
    () => [openaiChat().openaiChat, openaiResponses().openaiResponses],
    (message) => openaiErrors().encodeOpenAIError({ status: 404, type: 'invalid_request_error', message }),
    () => [openaiEmbeddings().openaiEmbeddings],
  ),
  // The SDK's base URL has no version; paths carry /v1.
  lazyProvider(
    { id: 'anthropic', defaultBaseURLs: ['https://api.anthropic.com'] },
    () => [anthropic().anthropicMessages],
    (message) => anthropic().encodeAnthropicError({ status: 404, type: 'not_found_error', message }),
  ),
  // Paths carry the API version (/v1beta/models/…:generateContent).
  lazyProvider(
    { id: 'gemini', defaultBaseURLs: ['https://generativelanguage.googleapis.com'] },
    () => [gemini().geminiGenerateContent],
    (message) => gemini().encodeGeminiError({ status: 404, type: 'NOT_FOUND', message }),
    () => [geminiEmbeddings().geminiEmbeddings],
  ),
  // Every region's endpoint (and FIPS, China); paths are /model/{modelId}/converse[-stream].
  lazyProvider(
    {
      id: 'bedrock',
      defaultBaseURLs: [],
      hosts: {
        origin: /^https:\/\/bedrock-runtime(?:-fips)?\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?$/,
        basePath: '',
      },
    },
    () => [bedrock().bedrockConverse],
    (message) => bedrock().encodeBedrockError({ status: 404, type: 'UnknownOperationException', message }),
  ),
];

/** What a provider serves below its base URL, as people write it (`POST /chat/completions`). */
export function endpointsOf(provider: ProviderDefinition): string[] {
  return [...provider.codecs, ...(provider.embeddings ?? [])].flatMap(
    (c) => c.endpoints ?? [`the ${c.protocol} endpoint`],
  );
}

/** A provider's name in the `providers` option: its preset's, else its own. */
export const optionNameOf = (provider: ProviderDefinition): string => provider.preset ?? provider.id;

const serves = (provider: ProviderDefinition, method: string, path: string) =>
  provider.codecs.some((c) => c.handles(method, path)) ||
  (provider.embeddings ?? []).some((c) => c.handles(method, path));

export interface RouteTarget {
  provider: ProviderDefinition;
  baseURL: string;
  /** Path below the base URL, without query. */
  path: string;
  query: URLSearchParams;
  /**
   * Every provider listed at this URL (this one first), when several are: a gateway host that
   * serves several providers by path. A request none of them serves names them all.
   */
  listed?: Array<{ provider: ProviderDefinition; baseURL: string; path: string }>;
}

/**
 * A class, not an object literal with a getter: V8 keeps a literal's accessor (and everything its
 * closure holds) alive until the next full collection, so a getter made per request turns every
 * request into young-generation survivors (bench/NOTES.md, "Per-request getters").
 */
class Target implements RouteTarget {
  readonly path: string;
  private parsed: URLSearchParams | undefined;
  listed?: RouteTarget['listed'];

  constructor(
    readonly provider: ProviderDefinition,
    readonly baseURL: string,
    private readonly rest: string,
    private readonly q: number,
  ) {
    this.path = q === -1 ? rest : rest.slice(0, q);
  }

  /** Parsed when a codec reads it: most requests carry none, and most codecs never look. */
  get query(): URLSearchParams {
    this.parsed ??= new URLSearchParams(this.q === -1 ? '' : this.rest.slice(this.q + 1));
    return this.parsed;
  }
}

function targetOf(provider: ProviderDefinition, prefix: string, url: string): RouteTarget {
  const rest = url.slice(prefix.length);
  return new Target(provider, prefix, rest, rest.indexOf('?'));
}

const below = (url: string, prefix: string) =>
  url.startsWith(prefix) && (url.length === prefix.length || '/?'.includes(url[prefix.length]));

/**
 * Maps request URLs to the provider whose base URL they fall under. Where base URLs of several
 * providers hold the same origin (one gateway host serving OpenAI's `/v1/chat/completions` and
 * Anthropic's `/v1/messages`), the provider that serves the request's path wins, the longest base
 * URL first.
 */
export class ProviderRouter {
  /** `shared`: base URLs of other providers are at its origin too (only those pay for routing by path). */
  private readonly bases: Array<{ prefix: string; provider: ProviderDefinition; shared: boolean }> = [];
  private readonly hosts: ProviderDefinition[];
  private origins: Set<string> | undefined;

  /** `extra`: more base URLs per provider or preset (the `providers` option, resolved). */
  constructor(extra: Partial<Record<string, string[]>> = {}) {
    const providers = [...PROVIDERS, ...presetProviders(extra)];
    const providersAt = new Map<string, Set<ProviderDefinition>>();
    for (const provider of providers) {
      const named = extra[optionNameOf(provider)] ?? [];
      for (const url of [...provider.defaultBaseURLs, ...(provider.basesFrom?.(named) ?? named)]) {
        const prefix = url.replace(/\/+$/, '');
        this.bases.push({ prefix, provider, shared: false });
        const origin = new URL(prefix).origin;
        const at = providersAt.get(origin) ?? new Set();
        at.add(provider);
        providersAt.set(origin, at);
      }
    }
    for (const base of this.bases)
      base.shared = (providersAt.get(new URL(base.prefix).origin)?.size ?? 0) > 1;
    // Longest prefix first, so a proxy path nested under another base wins.
    this.bases.sort((a, b) => b.prefix.length - a.prefix.length);
    this.hosts = providers.filter((p) => p.hosts);
  }

  /** The provider endpoint a request goes to (`method` decides between providers listed at one origin). */
  route(url: string, method = 'POST'): RouteTarget | undefined {
    let first: RouteTarget | undefined;
    const listed: NonNullable<RouteTarget['listed']> = [];
    for (const { prefix, provider, shared } of this.bases) {
      if (!below(url, prefix)) continue;
      const target = targetOf(provider, prefix, url);
      if (!first) {
        if (!shared) return target;
        first = target;
      }
      if (listed.some((l) => l.provider === provider)) continue;
      listed.push({ provider, baseURL: prefix, path: target.path });
      if (serves(provider, method, target.path)) return target;
    }
    if (first) {
      if (listed.length > 1) first.listed = listed;
      return first;
    }
    if (this.hosts.length === 0) return undefined;
    const end = url.indexOf('/', url.indexOf('//') + 2);
    const origin = end === -1 ? url : url.slice(0, end);
    for (const provider of this.hosts) {
      const { origin: pattern, basePath } = provider.hosts as NonNullable<ProviderDefinition['hosts']>;
      if (pattern.test(origin) && below(url, origin + basePath))
        return targetOf(provider, origin + basePath, url);
    }
    return undefined;
  }

  /** Whether a base URL is at this origin (`https://api.openai.com`), or a provider serves every host like it. */
  serves(origin: string): boolean {
    this.origins ??= new Set(this.bases.map((b) => new URL(b.prefix).origin));
    return this.origins.has(origin) || this.hosts.some((p) => p.hosts?.origin.test(origin));
  }

  /** Hosts the environment must intercept. */
  get baseURLs(): string[] {
    return this.bases.map((b) => b.prefix);
  }
}
