'use strict';
/**
 * A keep-alive HTTP/1.1 client on one socket that sends prepared bytes and waits for the whole
 * response (its content-length, or a chunked body's last chunk). For bench/served.bench.ts's
 * same-process phase: it costs next to nothing, so what it times is the server.
 */
const net = require('node:net');
const driver = require('./driver.cjs');

const SYSTEM = 'You are a travel helper. Use the tools when they help.';

/** The bytes of one Chat Completions request for a bench variant, as an SDK sends it. */
function requestBytes(host, path, variant) {
  const body = JSON.stringify({
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: SYSTEM },
      {
        role: 'user',
        content: `What is the weather and the local time in Paris right now? (${driver.REPLIES[variant.reply].key})`,
      },
    ],
    tools: driver.TOOLS,
    ...(variant.stream ? { stream: true } : {}),
  });
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
      `authorization: Bearer sk-understudy-bench\r\nuser-agent: OpenAI/JS 6.0.0\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Connects to 127.0.0.1:port; `call(bytes)` resolves with the response's head and body once it is whole. */
function connect(port) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.setEncoding('latin1');
  let buffer = '';
  let pending;
  socket.on('data', (data) => {
    buffer += data;
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = buffer.slice(0, end);
    const length = /\r\ncontent-length: (\d+)/i.exec(head);
    const whole = length ? buffer.length >= end + 4 + Number(length[1]) : buffer.endsWith('\r\n0\r\n\r\n');
    if (!whole) return;
    const done = pending;
    pending = undefined;
    const response = { head, body: buffer.slice(end + 4) };
    buffer = '';
    done?.resolve(response);
  });
  socket.on('error', (error) => pending?.reject(error));
  return {
    ready: new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    }),
    call: (bytes) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject };
        socket.write(bytes);
      }),
    close: () => socket.destroy(),
  };
}

module.exports = { requestBytes, connect };
