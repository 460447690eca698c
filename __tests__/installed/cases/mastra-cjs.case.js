/**
 * Mastra from a CommonJS test file, as a CommonJS project (or TypeScript compiled to CommonJS)
 * loads it: `require` takes Mastra's CommonJS build, which requires packages that ship only ES
 * modules; Jest loads those with --experimental-vm-modules on Node >= 24.9 (its require(esm)).
 */
const { expect, it } = require('@jest/globals');
const { Agent } = require('@mastra/core/agent');
const { createTool } = require('@mastra/core/tools');
const { script, understudy } = require('jest-understudy');
const { z } = require('zod');

const getWeather = createTool({
  id: 'get_weather',
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: 18 }),
});
const agent = new Agent({
  id: 'weather',
  name: 'Weather',
  instructions: 'Say what the weather is.',
  model: 'anthropic/claude-sonnet-4-5',
  tools: { get_weather: getWeather },
});

it("loads Mastra's CommonJS build", () => {
  expect(require.resolve('@mastra/core/agent')).toMatch(/\.cjs$/);
});

it.each([
  ['agent.generate', false],
  ['agent.stream', true],
])('%s runs the tool loop', async (_, stream) => {
  understudy.model.use(
    script().user('Oslo').callsTool('get_weather', { city: 'Oslo' }).replies('It is 18 °C in Oslo.'),
  );
  const run = await understudy.run(async () => {
    if (!stream) return (await agent.generate('What is the weather in Oslo?')).text;
    return (await agent.stream('What is the weather in Oslo?')).text;
  });
  expect(run).toHaveCalledToolSequence([{ name: 'get_weather', args: { city: 'Oslo' }, outcome: 'ok' }]);
  expect(run).toHaveFinalMessage('It is 18 °C in Oslo.');
  expect(run.modelCalls.map((call) => [call.protocol, call.streamed])).toEqual([
    ['anthropic.messages', stream],
    ['anthropic.messages', stream],
  ]);
});
