// The test file's first connection, the `ws` package (node:https's upgrade) to a host nothing
// serves, swallowed by the agent: the test still fails naming it.
const { expect, it } = require('./runner-globals.cjs');
const WebSocket = require('ws');

it('must fail: the first connection of the file, the ws package to a host nothing serves', async () => {
  const socket = new WebSocket('wss://first-ws.invalid/socket');
  const outcome = await new Promise((resolve) => {
    socket.on('open', () => resolve('open'));
    socket.on('error', () => resolve('failed'));
    socket.on('close', () => resolve('failed'));
  });
  expect(outcome).toBe('failed');
});
