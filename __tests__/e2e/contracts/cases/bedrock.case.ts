import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  ConverseStreamCommand,
  type Message,
  type ToolConfiguration,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { parallel, rejection } from './shared';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const toolConfig: ToolConfiguration = {
  tools: [
    { toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } },
    { toolSpec: { name: 'get_time', inputSchema: { json: { type: 'object' } } } },
  ],
};
const client = () => new BedrockRuntimeClient({ maxAttempts: 1 });
const failure = (p: Promise<unknown>) => rejection(p, ValidationException);

/** The first turn's toolUse blocks, read from Converse or ConverseStream. */
async function firstTurn(messages: Message[], stream: boolean): Promise<ContentBlock[]> {
  if (!stream) {
    const out = await client().send(new ConverseCommand({ modelId: MODEL, messages, toolConfig }));
    return out.output?.message?.content ?? [];
  }
  const out = await client().send(new ConverseStreamCommand({ modelId: MODEL, messages, toolConfig }));
  const blocks: ContentBlock[] = [];
  const inputs: string[] = [];
  for await (const e of out.stream ?? []) {
    const at = e.contentBlockStart?.contentBlockIndex ?? e.contentBlockDelta?.contentBlockIndex;
    if (e.contentBlockStart?.start?.toolUse && at !== undefined) {
      const { toolUseId, name } = e.contentBlockStart.start.toolUse;
      blocks[at] = { toolUse: { toolUseId, name, input: {} } };
      inputs[at] = '';
    } else if (e.contentBlockDelta?.delta?.toolUse && at !== undefined)
      inputs[at] += e.contentBlockDelta.delta.toolUse.input ?? '';
  }
  return blocks
    .filter(Boolean)
    .map((b, i) => ({ toolUse: { ...b.toolUse, input: JSON.parse(inputs[i] || '{}') } }) as ContentBlock);
}

for (const stream of [false, true])
  it(`bedrock: an agent that drops one of two parallel tool results (${stream ? 'streamed' : 'plain'})`, async () => {
    understudy.model.use(parallel);
    const messages: Message[] = [{ role: 'user', content: [{ text: 'Weather and time in Paris?' }] }];
    const content = await firstTurn(messages, stream);
    messages.push({ role: 'assistant', content });
    const [first, second] = content;
    messages.push({
      role: 'user',
      content: [{ toolResult: { toolUseId: first.toolUse?.toolUseId, content: [{ json: { tempC: 18 } }] } }],
    });
    const error = await failure(client().send(new ConverseCommand({ modelId: MODEL, messages, toolConfig })));
    expect(error.$metadata.httpStatusCode).toBe(400);
    expect(error.message).toBe(
      `Expected toolResult blocks at messages.2.content for the following Ids: ${second.toolUse?.toolUseId}`,
    );
    expect(understudy.model.calls.at(-1)).toMatchObject({
      contract: { rule: 'tool-results', at: 'messages[1]' },
    });
  });

it('bedrock: a toolResult for a call the turn before did not make', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const messages: Message[] = [
    { role: 'user', content: [{ text: 'hi' }] },
    { role: 'assistant', content: [{ text: 'Hello.' }] },
    { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_nowhere', content: [{ text: 'x' }] } }] },
  ];
  const error = await failure(client().send(new ConverseCommand({ modelId: MODEL, messages })));
  expect(error.message).toBe(
    'The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.',
  );
});

it('bedrock: a tool name the API does not accept', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const error = await failure(
    client().send(
      new ConverseCommand({
        modelId: MODEL,
        messages: [{ role: 'user', content: [{ text: 'hi' }] }],
        toolConfig: { tools: [{ toolSpec: { name: 'fs.list', inputSchema: { json: { type: 'object' } } } }] },
      }),
    ),
  );
  expect(error.message).toContain(
    "Value 'fs.list' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint",
  );
});
