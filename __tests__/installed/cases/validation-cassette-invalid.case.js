/**
 * @understudy-cassette ./recordings/invalid.cassette.json
 */
// The file's cassette cannot be loaded: the file must fail at start-up, before the agent can swallow anything.
const { expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { forgivingAgent } = require('./validation-agent');

it('answers from its cassette', async () => {
  const run = await understudy.run(() => forgivingAgent('hi'));
  expect(typeof run.output).toBe('string');
});
