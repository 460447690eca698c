// Embeddings, presets and mid-stream errors from the installed package.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { AzureOpenAI } = require('openai');
const { understudy } = require('jest-understudy');

it('embeddings: deterministic unit vectors, and an aimock fixture as an override', async () => {
  understudy.model.use([{ match: { inputText: 'refund' }, response: { embedding: [0.6, 0.8] } }]);
  const client = new OpenAI({ maxRetries: 0 });
  const out = await client.embeddings.create({
    model: 'text-embedding-3-small',
    input: ['refund policy', 'hours'],
  });
  // openai-node asks for base64 (float32) and decodes it: the fixture's values at float32 precision.
  expect(out.data[0].embedding).toEqual([Math.fround(0.6), Math.fround(0.8)]);
  expect(out.data[1].embedding).toHaveLength(1536);
  const again = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hours' });
  expect(again.data[0].embedding).toEqual(out.data[1].embedding);
});

it('Azure OpenAI: a deployment path on any resource', async () => {
  understudy.model.use([{ match: {}, response: { content: 'From Azure.' } }]);
  const client = new AzureOpenAI({
    endpoint: 'https://contoso.openai.azure.com',
    apiVersion: '2024-10-21',
    deployment: 'gpt-4o',
    maxRetries: 0,
  });
  const c = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'hi' }],
  });
  expect(c.choices[0].message.content).toBe('From Azure.');
});

it('a mid-stream error reaches the agent as the provider error', async () => {
  understudy.model.use([
    {
      match: {},
      response: {
        content: 'Partly sunny today in Paris.',
        chunkSize: 4,
        streamError: { message: 'Overloaded mid-stream' },
      },
    },
  ]);
  const run = await understudy.run(() =>
    new OpenAI({ maxRetries: 0 }).chat.completions
      .stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Paris?' }] })
      .finalChatCompletion(),
  );
  expect(run).toHaveTerminalState('errored');
  expect(run.error).toBeInstanceOf(OpenAI.APIError);
  expect(run.error.message).toContain('Overloaded mid-stream');
});
