// The test file's first request is a provider call over node:https (the AWS SDK's HTTP handler):
// it is served by the mock model, and an agent that asks for the wrong tool is still caught.
const { expect, it } = require('./runner-globals.cjs');
const { BedrockRuntimeClient, ConverseCommand } = require('@aws-sdk/client-bedrock-runtime');
const { understudy, script } = require('jest-understudy');

const modelId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const toolConfig = {
  tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }],
};

it('the first request of the file, a Bedrock Converse tool loop over node:https, is served', async () => {
  understudy.model.use(
    script().user('Paris').callsTool('get_weather', { city: 'Paris' }).replies('18 degrees in Paris.'),
  );
  const client = new BedrockRuntimeClient({ maxAttempts: 1 });
  const run = await understudy.run(async () => {
    const messages = [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }];
    for (;;) {
      const out = await client.send(new ConverseCommand({ modelId, messages, toolConfig }));
      const { content } = out.output.message;
      messages.push({ role: 'assistant', content });
      if (out.stopReason !== 'tool_use') return content[0].text;
      messages.push({
        role: 'user',
        content: content
          .filter((b) => b.toolUse)
          .map((b) => ({ toolResult: { toolUseId: b.toolUse.toolUseId, content: [{ text: '18' }] } })),
      });
    }
  });
  expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  expect(run).toHaveFinalMessage('18 degrees in Paris.');
  expect(run.modelCalls.map((c) => c.provider)).toEqual(['bedrock', 'bedrock']);
});
