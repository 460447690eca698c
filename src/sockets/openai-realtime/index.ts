/**
 * OpenAI Realtime over a WebSocket (`wss://api.openai.com/v1/realtime?model=…`, the GA API):
 * one session per connection, each model turn answered through the file's session.
 */

import { noteCredentials, noteSecret } from '../../files/secrets';
import type {
  SocketConnection,
  SocketOpening,
  SocketPeer,
  SocketProtocol,
  SocketServices,
} from '../protocol';
import { KEY_PROTOCOL, RealtimeRelay } from './relay';
import { RealtimeSessionMachine } from './session';

export const openaiRealtime: SocketProtocol = {
  protocol: 'openai.realtime',
  provider: 'openai',
  endpoints: ['GET /realtime'],
  handles: (path) => path === '/realtime',
  // Browsers authenticate in subprotocols (`realtime`, `openai-insecure-api-key.…`): accept `realtime`.
  subprotocol: (offered) => (offered.includes('realtime') ? 'realtime' : undefined),
  open(opening: SocketOpening, peer: SocketPeer, services: SocketServices): SocketConnection {
    // The key, in a header or a subprotocol, is blanked in every file written later.
    noteCredentials({ forEach: (visit) => opening.headers().forEach(visit) }, opening.url.href);
    for (const offered of opening.protocols)
      if (offered.startsWith(KEY_PROTOCOL)) noteSecret(offered.slice(KEY_PROTOCOL.length));
    const model = opening.url.searchParams.get('model');
    if (!model) {
      const url = opening.url;
      const other = url.searchParams.has('intent')
        ? 'a transcription session (intent=transcription), which jest-understudy does not serve'
        : url.searchParams.has('call_id')
          ? 'a WebRTC or SIP call (call_id), which jest-understudy does not serve'
          : undefined;
      const error = {
        status: 400,
        type: 'invalid_request_error',
        code: 'missing_required_parameter',
        param: 'model',
        message: other
          ? `Missing required parameter: 'model'. This socket opens ${other}: open a session by model (?model=…).`
          : "Missing required parameter: 'model'.",
      };
      services.refused(error);
      const { status: _, ...body } = error;
      peer.send(
        JSON.stringify({ type: 'error', event_id: 'event_000001', error: { ...body, event_id: null } }),
      );
      peer.close(1008, 'missing model');
      return { message() {}, closed() {} };
    }
    const session = new RealtimeSessionMachine(model, peer, services);
    return {
      message: (data) => session.message(data),
      closed: () => session.closedByClient(),
    };
  },
  relay: (opening, connect) => new RealtimeRelay(opening, connect),
};
