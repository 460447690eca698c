// The shared-worker cases' voice agent: it checks a status page when it loads, then keeps the
// global WebSocket class, as modules that pick a WebSocket implementation at load do. Under
// `isolate: false` it loads once per worker, in the first file that imports it; that file's status
// check started msw, so the class it keeps is the one msw had put on the global then. Node 20 has
// no global WebSocket: there it keeps the `ws` package's.
await fetch('https://status.example.com/v1/status');
const WebSocketClass = globalThis.WebSocket ?? (await import('ws')).WebSocket;

/**
 * One OpenAI Realtime turn: says `text`, resolves with the assistant's transcript, or with what
 * went wrong (an error event's message, a socket that failed or closed first) as an agent that
 * swallows it would.
 */
export function say(text) {
  return new Promise((resolve) => {
    const socket = new WebSocketClass('wss://api.openai.com/v1/realtime?model=gpt-realtime', [
      'realtime',
      'openai-insecure-api-key.sk-test',
    ]);
    const end = (outcome) => {
      socket.close();
      resolve(outcome);
    };
    socket.addEventListener('open', () => {
      const item = { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
      socket.send(JSON.stringify({ type: 'conversation.item.create', item }));
      socket.send(JSON.stringify({ type: 'response.create' }));
    });
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data));
      if (message.type === 'response.done')
        end({ transcript: message.response.output.at(-1)?.content?.[0]?.transcript });
      if (message.type === 'error') end({ error: message.error?.message });
    });
    socket.addEventListener('error', () => end({ error: 'the socket failed' }));
    socket.addEventListener('close', () => end({ error: 'the socket closed' }));
  });
}
