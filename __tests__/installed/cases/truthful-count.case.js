/**
 * One world operation inside understudy.run: the reporter's summary counts it once.
 * @understudy-world ./truthful.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const { script, understudy } = require('jest-understudy');
const { openaiAgent } = require('./truthful-agents');

it('runs one tool through the world', async () => {
  understudy.model.use(script().user('weather').callsTool('get_weather', { city: 'Paris' }).replies('18 C'));
  const run = await understudy.run(() => openaiAgent('weather in Paris?'));
  expect(run.operations).toHaveLength(1);
});
