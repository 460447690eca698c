/**
 * The served port's faults on the wire, from the installed package: a client in another process
 * (serve-raw-client.cjs, written here by the driver) reads the bytes of a stream that ends with
 * the provider's error event, and of one whose connection drops mid-way.
 */
const { execFile } = require('node:child_process');
const { join } = require('node:path');
const { expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');

function raw(url, question) {
  const body = JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: question }],
    stream: true,
  });
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(__dirname, 'serve-raw-client.cjs'), url, body],
      (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(JSON.parse(stdout))),
    );
  });
}

it("a stream that fails mid-way ends with the provider's error event", async () => {
  understudy.model.use([
    {
      match: { userMessage: 'overloaded' },
      response: {
        content: 'This answer never ends.',
        chunkSize: 4,
        streamError: { message: 'The server is overloaded.' },
      },
    },
  ]);
  const served = await understudy.serve();
  const answer = await raw(`${served.urls.openai}/chat/completions`, 'overloaded');
  expect(answer).toMatchObject({ status: 200, complete: true, error: null });
  const events = answer.chunks.join('').trim().split('\n\n');
  expect(events.length).toBeGreaterThan(1);
  expect(JSON.parse(events.at(-1).replace(/^data: /, ''))).toMatchObject({
    error: { message: 'The server is overloaded.' },
  });
});

it('a disconnect fault drops the connection after part of the stream', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'cut' },
      response: { content: 'Cut off half way through.', chunkSize: 4, disconnect: true },
    },
  ]);
  const served = await understudy.serve();
  const answer = await raw(`${served.urls.openai}/chat/completions`, 'cut');
  expect(answer.status).toBe(200);
  expect(answer.complete).toBe(false);
  expect(answer.error).not.toBeNull();
  expect(answer.chunks.join('')).toContain('data: {');
  expect(answer.chunks.join('')).not.toContain('[DONE]');
});
