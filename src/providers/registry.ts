import type { ProviderId } from '../conversation';
import { anthropicMessages, encodeAnthropicError } from './anthropic-messages';
import type { ProviderCodec, WireResponse } from './codec';
import { encodeGeminiError, geminiGenerateContent } from './gemini';
import { openaiChat } from './openai-chat';
import { encodeOpenAIError } from './openai-chat/errors';
import { openaiResponses } from './openai-responses';

export interface ProviderDefinition {
  id: ProviderId;
  /** Base URLs the SDKs use by default; requests below them belong to this provider. */
  defaultBaseURLs: string[];
  codecs: ProviderCodec[];
  /** How this provider says "no such endpoint". */
  notFound: (message: string) => WireResponse;
}

export const PROVIDERS: ProviderDefinition[] = [
  {
    id: 'openai',
    defaultBaseURLs: ['https://api.openai.com/v1'],
    codecs: [openaiChat, openaiResponses],
    notFound: (message) => encodeOpenAIError({ status: 404, type: 'invalid_request_error', message }),
  },
  {
    id: 'anthropic',
    // The SDK's base URL has no version; paths carry /v1.
    defaultBaseURLs: ['https://api.anthropic.com'],
    codecs: [anthropicMessages],
    notFound: (message) => encodeAnthropicError({ status: 404, type: 'not_found_error', message }),
  },
  {
    id: 'gemini',
    // Paths carry the API version (/v1beta/models/…:generateContent).
    defaultBaseURLs: ['https://generativelanguage.googleapis.com'],
    codecs: [geminiGenerateContent],
    notFound: (message) => encodeGeminiError({ status: 404, type: 'NOT_FOUND', message }),
  },
];

export interface RouteTarget {
  provider: ProviderDefinition;
  baseURL: string;
  /** Path below the base URL, without query. */
  path: string;
  query: URLSearchParams;
}

/** Maps request URLs to the provider whose base URL they fall under. */
export class ProviderRouter {
  private readonly bases: Array<{ prefix: string; provider: ProviderDefinition }> = [];

  constructor(extra: Partial<Record<ProviderId, string[]>> = {}) {
    for (const provider of PROVIDERS) {
      for (const url of [...provider.defaultBaseURLs, ...(extra[provider.id] ?? [])]) {
        this.bases.push({ prefix: url.replace(/\/+$/, ''), provider });
      }
    }
    // Longest prefix first, so a proxy path nested under another base wins.
    this.bases.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  route(url: string): RouteTarget | undefined {
    for (const { prefix, provider } of this.bases) {
      if (url.startsWith(prefix) && (url.length === prefix.length || '/?'.includes(url[prefix.length]))) {
        const rest = url.slice(prefix.length);
        const q = rest.indexOf('?');
        return {
          provider,
          baseURL: prefix,
          path: q === -1 ? rest : rest.slice(0, q),
          query: new URLSearchParams(q === -1 ? '' : rest.slice(q + 1)),
        };
      }
    }
    return undefined;
  }

  /** Hosts the environment must intercept. */
  get baseURLs(): string[] {
    return this.bases.map((b) => b.prefix);
  }
}
