// Bedrock Converse and ConverseStream from the installed package, through the AWS SDK: replay
// signs with placeholder credentials, and the binary event stream reassembles a parallel loop.
const { expect, it } = require('./runner-globals.cjs');
const {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  ValidationException,
} = require('@aws-sdk/client-bedrock-runtime');
const { understudy, script } = require('jest-understudy');

const modelId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const toolConfig = {
  tools: ['get_weather', 'get_time'].map((name) => ({
    toolSpec: { name, inputSchema: { json: { type: 'object' } } },
  })),
};

async function turn(client, messages, stream) {
  if (!stream) {
    const out = await client.send(new ConverseCommand({ modelId, messages, toolConfig }));
    return { content: out.output.message.content, stop: out.stopReason };
  }
  const out = await client.send(new ConverseStreamCommand({ modelId, messages, toolConfig }));
  const blocks = [];
  let stop;
  for await (const e of out.stream) {
    if (e.contentBlockStart)
      blocks[e.contentBlockStart.contentBlockIndex] = { ...e.contentBlockStart.start.toolUse, input: '' };
    else if (e.contentBlockDelta) {
      const at = e.contentBlockDelta.contentBlockIndex;
      const d = e.contentBlockDelta.delta;
      if (d.text !== undefined) blocks[at] = { text: (blocks[at]?.text || '') + d.text };
      else if (d.toolUse) blocks[at].input += d.toolUse.input;
    } else if (e.messageStop) stop = e.messageStop.stopReason;
  }
  const content = blocks
    .filter(Boolean)
    .map((b) =>
      b.name
        ? { toolUse: { toolUseId: b.toolUseId, name: b.name, input: JSON.parse(b.input || '{}') } }
        : { text: b.text },
    );
  return { content, stop };
}

for (const stream of [false, true])
  it(`a parallel tool loop (${stream ? 'ConverseStream' : 'Converse'})`, async () => {
    understudy.model.use(
      script()
        .user('Paris')
        .callsTools([{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_time' }])
        .replies('Sunny at 9.'),
    );
    const client = new BedrockRuntimeClient({ maxAttempts: 1 });
    const run = await understudy.run(async () => {
      const messages = [{ role: 'user', content: [{ text: 'Weather and time in Paris?' }] }];
      for (;;) {
        const { content, stop } = await turn(client, messages, stream);
        messages.push({ role: 'assistant', content });
        if (stop !== 'tool_use') return content[0].text;
        messages.push({
          role: 'user',
          content: content
            .filter((b) => b.toolUse)
            .map((b) => ({ toolResult: { toolUseId: b.toolUse.toolUseId, content: [{ text: 'ok' }] } })),
        });
      }
    });
    expect(run).toHaveCalledToolSequence([{ name: 'get_weather', args: { city: 'Paris' } }, 'get_time']);
    expect(run).toHaveFinalMessage('Sunny at 9.');
    expect(process.env.AWS_ACCESS_KEY_ID).toBe('AKIAUNDERSTUDYREPLAY0');
  });

it('an agent that drops a toolResult gets the ValidationException, and the test fails', async () => {
  understudy.model.use(
    script()
      .user('Paris')
      .callsTools([{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_time' }])
      .replies('Sunny at 9.'),
  );
  const client = new BedrockRuntimeClient({ maxAttempts: 1 });
  const messages = [{ role: 'user', content: [{ text: 'Weather and time in Paris?' }] }];
  const { content } = await turn(client, messages, false);
  messages.push({ role: 'assistant', content });
  messages.push({
    role: 'user',
    content: [{ toolResult: { toolUseId: content[0].toolUse.toolUseId, content: [{ text: 'ok' }] } }],
  });
  const error = await client.send(new ConverseCommand({ modelId, messages, toolConfig })).catch((e) => e);
  expect(error).toBeInstanceOf(ValidationException);
});
