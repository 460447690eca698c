// Runs after runs-leftover-a in the same worker, while that file's stream is still being read.
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy, script } = require('jest-understudy');

const marker = join(__dirname, 'leftover.txt');

const ask = (client) =>
  client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }] });

it('is not reached by what the previous file left running', async () => {
  understudy.model.use(script().user('ping').replies('pong'));
  const client = new OpenAI({ maxRetries: 0 });
  await ask(client);
  // Waits (at most 20 s) until the previous file's leftover code has fetched.
  for (let i = 0; i < 400 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
  expect(readFileSync(marker, 'utf8')).toMatch(
    /^rejected \(TypeError\): jest-understudy: fetch\(https:\/\/api\.openai\.com\/v1\/chat\/completions\) was called after the test file runs-leftover-a\.case\.js finished/,
  );
  await ask(client);
  expect(understudy.model.calls.map((c) => c.conversation.messages[0].text)).toEqual(['ping', 'ping']);
});
