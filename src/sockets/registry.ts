/**
 * The socket protocols, by provider and path, as the codecs are for HTTP: a WebSocket URL is
 * routed by the same base URLs (defaults, the `providers` option, presets) as a request, then the
 * provider's protocol that handles the path below the base URL serves it. Each protocol module is
 * required on the first connection to a served host.
 */
import type { ProviderRouter, RouteTarget } from '../providers/registry';
import type { SocketProtocol } from './protocol';

type Module<T> = () => T;
const responsesWs: Module<typeof import('./openai-responses-ws')> = () => require('./openai-responses-ws');
const realtime: Module<typeof import('./openai-realtime')> = () => require('./openai-realtime');
const geminiLive: Module<typeof import('./gemini-live')> = () => require('./gemini-live');

/** Every socket protocol, in the order they are tried. */
export const SOCKET_PROTOCOLS: ReadonlyArray<() => SocketProtocol> = [
  () => responsesWs().openaiResponsesWs,
  () => realtime().openaiRealtime,
  () => geminiLive().geminiLive,
];

export interface SocketRoute {
  protocol: SocketProtocol;
  /** The provider's route, for the URL given as `http(s):` (its base URL and the path below it). */
  target: RouteTarget;
}

/** `ws://` as `http://`, `wss://` as `https://`: the form base URLs are listed in. */
export function httpFormOf(url: string): string {
  return url.replace(/^ws(s?):/i, 'http$1:');
}

export class SocketRouter {
  constructor(
    private readonly router: ProviderRouter,
    private readonly protocols: ReadonlyArray<() => SocketProtocol> = SOCKET_PROTOCOLS,
  ) {}

  /** The protocol that serves a WebSocket to `url` (`ws(s):` or `http(s):`), or undefined. */
  route(url: string): SocketRoute | undefined {
    const target = this.router.route(httpFormOf(url), 'GET');
    if (!target) return undefined;
    const candidates = target.listed ?? [
      { provider: target.provider, baseURL: target.baseURL, path: target.path },
    ];
    for (const { provider, path } of candidates) {
      for (const load of this.protocols) {
        const protocol = load();
        if (protocol.provider === provider.id && protocol.handles(path))
          return { protocol, target: provider === target.provider ? target : { ...target, provider, path } };
      }
    }
    return undefined;
  }
}
