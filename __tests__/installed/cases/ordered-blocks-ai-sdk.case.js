// The AI SDK (`ai` with @ai-sdk/anthropic, @ai-sdk/openai's Responses model and @ai-sdk/google)
// on a reply whose text comes after its tool call, from the installed package: a whole
// generateText / streamText loop runs the tool, and the step's content keeps the model's order.
const { expect, it } = require('./runner-globals.cjs');
const { dirname, join } = require('node:path');
const { generateText, jsonSchema, stepCountIs, streamText, tool } = require('ai');
const { createAnthropic } = require('@ai-sdk/anthropic');
const { createOpenAI } = require('@ai-sdk/openai');
const { createGoogleGenerativeAI } = require('@ai-sdk/google');
const { understudy, loadFixtures } = require('jest-understudy');

const ASK = "what's the weather in NYC?";
const LATE = 'Let me check the weather in NYC for you.';
const ANSWER = 'Sunny and 22°C in NYC.';
const aimockRoot = dirname(dirname(require.resolve('@copilotkit/aimock')));
const EXAMPLE = join(aimockRoot, 'fixtures', 'examples', 'llm', 'blocks-tool-first.json');
const turns = () => [
  { match: { userMessage: ASK, hasToolResult: true }, response: { content: ANSWER } },
  ...loadFixtures(EXAMPLE),
];

const models = {
  anthropic: () => createAnthropic({ apiKey: 'x' })('claude-sonnet-4-6'),
  'openai responses': () => createOpenAI({ apiKey: 'x' }).responses('gpt-4.1'),
  google: () => createGoogleGenerativeAI({ apiKey: 'x' })('gemini-2.5-flash'),
};

const tools = {
  get_weather: tool({
    inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
    execute: async ({ city }) => ({ city, tempC: 22 }),
  }),
};

/** The first step's text and tool calls, in the order the SDK gives them. */
const orderOf = (step) =>
  step.content
    .filter((p) => p.type === 'text' || p.type === 'tool-call')
    .map((p) => (p.type === 'text' ? `text:${p.text}` : `call:${p.toolName}`));

for (const [name, model] of Object.entries(models))
  for (const stream of [false, true]) {
    it(`${name} (${stream ? 'streamText' : 'generateText'}): the call, then the text, then the answer`, async () => {
      understudy.model.use(turns());
      const options = { model: model(), prompt: ASK, tools, stopWhen: stepCountIs(3) };
      const run = await understudy.run(async () => {
        if (!stream) return generateText(options);
        const result = streamText(options);
        await result.consumeStream();
        return { steps: await result.steps, text: await result.text };
      });
      const { steps, text } = run.output;
      expect(orderOf(steps[0])).toEqual(['call:get_weather', `text:${LATE}`]);
      expect(text).toBe(ANSWER);
      expect(run).toHaveCalledTool('get_weather', { city: 'NYC' });
      expect(run).toHaveFinalMessage(ANSWER);
    });
  }
