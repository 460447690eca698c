/**
 * A world operation's input schema and a strict tool's parameters schema, both checked with ajv:
 * the world's on the host, once per worker, the tool's in the test file. Run by ajv-bundle.test.ts
 * with a preload that lists the ajv files each process reads.
 * @understudy-world ./truthful.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { mockTool, understudy } = require('jest-understudy');

const LOOKUP = {
  type: 'function',
  function: {
    name: 'lookup_account',
    strict: true,
    parameters: {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    },
  },
};

const ask = () =>
  new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Who is u-1?' }],
    tools: [LOOKUP],
  });

it("a world operation's input schema takes a good input and refuses a bad one", () => {
  const lookup = mockTool(understudy.world.bind(), {
    mode: 'sync',
    operation: { packageId: 'accounts', operationId: 'accounts.get' },
  });
  expect(lookup({ id: 'u-1' })).toEqual({ id: 'u-1', name: 'Kim' });
  expect(() => lookup({ id: 7 })).toThrow(/must be string/);
});

it("a strict tool's call fits its parameters schema", async () => {
  understudy.model.use([
    { match: {}, response: { toolCalls: [{ name: 'lookup_account', arguments: { id: 'u-1' } }] } },
  ]);
  const reply = await ask();
  expect(JSON.parse(reply.choices[0].message.tool_calls[0].function.arguments)).toEqual({ id: 'u-1' });
});

// Fails: the reply goes out, and the test fails with the contract breach (the driver reads it).
it("a fixture whose call breaks a strict tool's schema fails the test, naming the field", async () => {
  understudy.model.use([
    { match: {}, response: { toolCalls: [{ name: 'lookup_account', arguments: { id: 7 } }] } },
  ]);
  await ask();
});
