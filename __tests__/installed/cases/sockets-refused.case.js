// WebSockets nothing serves: each fails its test naming the URL, whatever the agent does with the
// error (here it swallows it).
const { expect, it } = require('./runner-globals.cjs');
const WebSocket = require('ws');

const outcome = (on) =>
  new Promise((resolve) => {
    on('open', () => resolve('open'));
    on('error', () => resolve('failed'));
    on('close', () => resolve('failed'));
  });

it('must fail: the ws package to a provider path no socket protocol serves', async () => {
  const socket = new WebSocket('wss://api.openai.com/v1/chat/completions');
  expect(await outcome((name, f) => socket.on(name, f))).toBe('failed');
});

it("must fail: Node's global WebSocket to a host nothing serves", async () => {
  const socket = new globalThis.WebSocket('wss://tracker.invalid/socket');
  expect(await outcome((name, f) => socket.addEventListener(name, f))).toBe('failed');
});
