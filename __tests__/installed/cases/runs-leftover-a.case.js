// Leaves a streamed reply being read when the file ends; when the stream is done, the leftover
// code fetches again (after this file's teardown) and notes what fetch did in leftover.txt.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

const marker = join(__dirname, 'leftover.txt');
const url = 'https://api.openai.com/v1/chat/completions';

it('leaves a stream running', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'long story' },
      response: { content: 'once upon a time there was a stream', chunkSize: 4, chunkDelay: 150 },
    },
  ]);
  const stream = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'long story' }],
    stream: true,
  });
  const chunks = stream[Symbol.asyncIterator]();
  expect((await chunks.next()).done).toBe(false);
  void (async () => {
    while (!(await chunks.next()).done);
    let pending;
    try {
      pending = fetch(url, { method: 'POST', body: '{}' });
    } catch (error) {
      writeFileSync(marker, `threw synchronously: ${error.message}`);
      return;
    }
    pending.then(
      () => writeFileSync(marker, 'resolved'),
      (error) =>
        writeFileSync(
          marker,
          `rejected (${error instanceof TypeError ? 'TypeError' : typeof error}): ${error.message}`,
        ),
    );
  })();
});
