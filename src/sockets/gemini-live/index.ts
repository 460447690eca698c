import type { SocketProtocol } from '../protocol';
import { LiveRelay } from './relay';
import { type LiveServices, LiveSession } from './session';

export type { LiveServices };

/**
 * `/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent`, also v1 and
 * v1alpha and ephemeral tokens' `…Constrained`. @google/genai joins its base URL's trailing slash
 * and the path's leading one (`//ws/…`), which the API takes.
 */
const PATH =
  /^\/+ws\/google\.ai\.generativelanguage\.(v1alpha|v1beta|v1)\.GenerativeService\.BidiGenerateContent(Constrained)?$/;

/**
 * Gemini Live (the Developer API's BidiGenerateContent over a WebSocket, as `ai.live.connect`
 * opens it): setup, client content, realtime input and tool responses in; server content, tool
 * calls and their cancellation out, each model turn answered by the file's mock model.
 */
export const geminiLive: SocketProtocol = {
  protocol: 'gemini.live',
  provider: 'gemini',
  handles: (path) => PATH.test(path),
  endpoints: ['GET /ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent'],
  open: (_opening, peer, services) => new LiveSession(peer, services),
  relay: (opening, connect) => new LiveRelay(opening, connect),
};
