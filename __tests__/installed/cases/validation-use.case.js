// Fixtures given in memory are checked like a fixture file: a bad one fails the test with the
// path of the problem, before an agent can swallow what it would have caused.
const { expect, it } = require('./runner-globals.cjs');
const { createAgentHarness, understudy } = require('jest-understudy');
const { forgivingAgent } = require('./validation-agent');

const ask = () => understudy.run(() => forgivingAgent('hi'));

it('chunkSize 0', async () => {
  understudy.model.use([{ match: {}, response: { content: 'hello', chunkSize: 0 } }]);
  expect(typeof (await ask()).output).toBe('string');
});

it('a null fixture', async () => {
  understudy.model.use({ fixtures: [null] });
  expect(typeof (await ask()).output).toBe('string');
});

it('toolCalls as a string', async () => {
  understudy.model.use([{ match: {}, response: { toolCalls: 'lookup' } }]);
  expect(typeof (await ask()).output).toBe('string');
});

it('harness.run with a bad fixture', async () => {
  const harness = createAgentHarness({ agent: (question) => forgivingAgent(question) });
  const run = await harness.run({
    input: 'hi',
    fixtures: [{ match: {}, response: { content: 'x', latency: -5 } }],
  });
  expect(typeof run.output).toBe('string');
});

it('createAgentHarness with a bad fixture', async () => {
  const harness = createAgentHarness({
    agent: (question) => forgivingAgent(question),
    fixtures: [{ match: { userMessage: 'hi' }, reponse: { content: 'x' } }],
  });
  expect(typeof (await harness.run('hi')).output).toBe('string');
});

it('a failed use() registers nothing', () => {
  const good = { match: {}, response: { content: 'kept' } };
  expect(() => understudy.model.use([good, { match: {}, response: {} }])).toThrow('use()[1].response');
  expect(understudy.model.fixtures).toEqual([]);
});
