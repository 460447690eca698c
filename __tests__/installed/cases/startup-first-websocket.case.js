// The test file's first connection, a WebSocket to a host nothing serves (Node's global WebSocket,
// or the `ws` package where Node has none), swallowed by the agent: the test still fails naming it.
const { expect, it } = require('./runner-globals.cjs');

it('must fail: the first connection of the file, a WebSocket to a host nothing serves', async () => {
  const url = 'wss://first-websocket.invalid/socket';
  const outcome = await new Promise((resolve) => {
    if (globalThis.WebSocket) {
      const socket = new globalThis.WebSocket(url);
      socket.addEventListener('open', () => resolve('open'));
      socket.addEventListener('error', () => resolve('failed'));
      socket.addEventListener('close', () => resolve('failed'));
    } else {
      const socket = new (require('ws'))(url);
      socket.on('open', () => resolve('open'));
      socket.on('error', () => resolve('failed'));
      socket.on('close', () => resolve('failed'));
    }
  });
  expect(outcome).toBe('failed');
});
