import type { ProviderId } from '../conversation';
import type { ProviderCodec, WireResponse } from './codec';

export interface ProviderDefinition {
  id: ProviderId;
  /** Base URLs the SDKs use by default; requests below them belong to this provider. */
  defaultBaseURLs: string[];
  readonly codecs: ProviderCodec[];
  /** How this provider says "no such endpoint". */
  notFound: (message: string) => WireResponse;
}

/**
 * A provider whose codecs are required on its first request: a test file that talks to one
 * provider does not load (and Jest does not re-evaluate for every file) the other three.
 */
function provider(
  id: ProviderId,
  defaultBaseURLs: string[],
  codecs: () => ProviderCodec[],
  notFound: (message: string) => WireResponse,
): ProviderDefinition {
  let loaded: ProviderCodec[] | undefined;
  return {
    id,
    defaultBaseURLs,
    get codecs() {
      loaded ??= codecs();
      return loaded;
    },
    notFound,
  };
}

type Module<T> = () => T;
const openaiChat: Module<typeof import('./openai-chat')> = () => require('./openai-chat');
const openaiErrors: Module<typeof import('./openai-chat/errors')> = () => require('./openai-chat/errors');
const openaiResponses: Module<typeof import('./openai-responses')> = () => require('./openai-responses');
const anthropic: Module<typeof import('./anthropic-messages')> = () => require('./anthropic-messages');
const gemini: Module<typeof import('./gemini')> = () => require('./gemini');

export const PROVIDERS: ProviderDefinition[] = [
  provider(
    'openai',
    ['https://api.openai.com/v1'],
    () => [openaiChat().openaiChat, openaiResponses().openaiResponses],
    (message) => openaiErrors().encodeOpenAIError({ status: 404, type: 'invalid_request_error', message }),
  ),
  // The SDK's base URL has no version; paths carry /v1.
  provider(
    'anthropic',
    ['https://api.anthropic.com'],
    () => [anthropic().anthropicMessages],
    (message) => anthropic().encodeAnthropicError({ status: 404, type: 'not_found_error', message }),
  ),
  // Paths carry the API version (/v1beta/models/…:generateContent).
  provider(
    'gemini',
    ['https://generativelanguage.googleapis.com'],
    () => [gemini().geminiGenerateContent],
    (message) => gemini().encodeGeminiError({ status: 404, type: 'NOT_FOUND', message }),
  ),
];

/** What a provider serves below its base URL, as people write it (`POST /chat/completions`). */
export function endpointsOf(provider: ProviderDefinition): string[] {
  return provider.codecs.flatMap((c) => c.endpoints ?? [`the ${c.protocol} endpoint`]);
}

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
 * Maps request URLs to the provider whose base URL they fall under. Where base URLs of several
 * providers hold the same URL (one gateway host serving OpenAI's `/v1/chat/completions` and
 * Anthropic's `/v1/messages`), the provider that serves the request's path wins: the longest
 * base URL first.
 */
export class ProviderRouter {
  private readonly bases: Array<{ prefix: string; provider: ProviderDefinition }> = [];
  private origins: Set<string> | undefined;
  /** Origins where base URLs of more than one provider are: only those pay for routing by path. */
  private readonly shared = new Set<string>();

  constructor(extra: Partial<Record<ProviderId, string[]>> = {}) {
    const providersAt = new Map<string, Set<ProviderId>>();
    for (const provider of PROVIDERS) {
      for (const url of [...provider.defaultBaseURLs, ...(extra[provider.id] ?? [])]) {
        const prefix = url.replace(/\/+$/, '');
        this.bases.push({ prefix, provider });
        const origin = new URL(prefix).origin;
        const ids = providersAt.get(origin) ?? new Set();
        ids.add(provider.id);
        providersAt.set(origin, ids);
      }
    }
    for (const [origin, ids] of providersAt) if (ids.size > 1) this.shared.add(origin);
    // Longest prefix first, so a proxy path nested under another base wins.
    this.bases.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** The provider endpoint a request goes to (`method` decides between providers listed at one URL). */
  route(url: string, method = 'POST'): RouteTarget | undefined {
    let first: RouteTarget | undefined;
    let listed: RouteTarget['listed'];
    for (const { prefix, provider } of this.bases) {
      if (!(url.startsWith(prefix) && (url.length === prefix.length || '/?'.includes(url[prefix.length]))))
        continue;
      const rest = url.slice(prefix.length);
      const q = rest.indexOf('?');
      const path = q === -1 ? rest : rest.slice(0, q);
      const target: RouteTarget = {
        provider,
        baseURL: prefix,
        path,
        query: new URLSearchParams(q === -1 ? '' : rest.slice(q + 1)),
      };
      if (!first) {
        if (!this.shared.has(new URL(prefix).origin)) return target;
        first = target;
        listed = [];
      }
      if (listed!.some((l) => l.provider === provider)) continue;
      listed!.push({ provider, baseURL: prefix, path });
      if (provider.codecs.some((c) => c.handles(method, path))) return target;
    }
    if (first && listed!.length > 1) first.listed = listed;
    return first;
  }

  /** Whether a base URL is at this origin (`https://api.openai.com`). */
  serves(origin: string): boolean {
    this.origins ??= new Set(this.bases.map((b) => new URL(b.prefix).origin));
    return this.origins.has(origin);
  }

  /** Hosts the environment must intercept. */
  get baseURLs(): string[] {
    return this.bases.map((b) => b.prefix);
  }
}
