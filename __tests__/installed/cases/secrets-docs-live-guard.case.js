// The source documents' live-test guard, as a Jest user writes it: in replay mode, with no key
// and no CI, the guard does not skip (replay put a placeholder in OPENAI_API_KEY before this file
// loaded, so the client below, built at import time, works), and the live harness fails with
// RECORD_KEY_MISSING. The failure must say why and point to live(), which does skip.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { createAgentHarness, live } = require('jest-understudy');

// Built when the module loads, as many agents do.
const client = new OpenAI({ maxRetries: 0 });

async function agent(input) {
  const completion = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: input }],
  });
  return completion.choices[0].message.content;
}

const liveIt = process.env.CI || !process.env.OPENAI_API_KEY ? it.skip : it;

liveIt('checks the prompt against a real model (guarded by the key variable)', async () => {
  const h = createAgentHarness({ agent, live: true });
  const run = await h.run('Filter open items');
  expect(run.finalMessage).toMatch(/open/i);
});

live('checks the prompt against a real model (live())', async () => {
  const h = createAgentHarness({ agent, live: true });
  const run = await h.run('Filter open items');
  expect(run.finalMessage).toMatch(/open/i);
});
