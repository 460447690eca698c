/** A Bedrock agent loop on the AWS SDK, pointed at the fake upstream's /bedrock paths (recorded, then replayed). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  ConverseStreamCommand,
  type Message,
} from '@aws-sdk/client-bedrock-runtime';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';

const modelId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const toolConfig = {
  tools: [
    {
      toolSpec: {
        name: 'lookup_order',
        inputSchema: { json: { type: 'object', properties: { orderId: { type: 'string' } } } },
      },
    },
  ],
};

async function turn(client: BedrockRuntimeClient, messages: Message[], stream: boolean) {
  if (!stream) {
    const out = await client.send(new ConverseCommand({ modelId, messages, toolConfig }));
    return { content: out.output?.message?.content ?? [], stop: out.stopReason };
  }
  const out = await client.send(new ConverseStreamCommand({ modelId, messages, toolConfig }));
  const blocks: Array<{ text?: string; toolUseId?: string; name?: string; input?: string }> = [];
  let stop: string | undefined;
  for await (const e of out.stream ?? []) {
    const start = e.contentBlockStart;
    const delta = e.contentBlockDelta;
    if (start?.start?.toolUse) blocks[start.contentBlockIndex ?? 0] = { ...start.start.toolUse, input: '' };
    else if (delta?.delta?.text !== undefined) {
      const at = delta.contentBlockIndex ?? 0;
      blocks[at] = { text: (blocks[at]?.text ?? '') + delta.delta.text };
    } else if (delta?.delta?.toolUse)
      blocks[delta.contentBlockIndex ?? 0].input += delta.delta.toolUse.input ?? '';
    else if (e.messageStop) stop = e.messageStop.stopReason;
  }
  const content = blocks
    .filter(Boolean)
    .map(
      (b): ContentBlock =>
        b.name
          ? { toolUse: { toolUseId: b.toolUseId, name: b.name, input: JSON.parse(b.input || '{}') } }
          : { text: b.text ?? '' },
    );
  return { content, stop };
}

for (const stream of [false, true])
  it(`bedrock ${stream ? 'streamed' : 'plain'}: looks two orders up and answers`, async () => {
    const client = new BedrockRuntimeClient({
      endpoint: `${process.env.UPSTREAM_URL ?? 'http://127.0.0.1:9'}/bedrock`,
      maxAttempts: 1,
    });
    const run = await understudy.run(async () => {
      const messages: Message[] = [
        { role: 'user', content: [{ text: `bedrock ${stream}: where are orders A-1001 and B-2002?` }] },
      ];
      for (let step = 0; step < 4; step++) {
        const { content, stop } = await turn(client, messages, stream);
        messages.push({ role: 'assistant', content });
        if (stop !== 'tool_use') return content.map((b) => b.text ?? '').join('');
        messages.push({
          role: 'user',
          content: content.flatMap((b): ContentBlock[] => {
            const orderId = (b.toolUse?.input as { orderId?: string } | undefined)?.orderId ?? '';
            const status = orderId.startsWith('A') ? 'shipped' : 'packing';
            return b.toolUse
              ? [{ toolResult: { toolUseId: b.toolUse.toolUseId, content: [{ json: { orderId, status } }] } }]
              : [];
          }),
        });
      }
      throw new Error('too many steps');
    });
    expect(run.error).toBeUndefined();
    expect(run.toolsCalled).toEqual(['lookup_order', 'lookup_order']);
    expect(run.output).toMatch(/shipped.*packing/);
    const dir = join(process.env.RUN_OUT ?? '.', process.env.CASE_PHASE ?? 'run');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `bedrock-${stream}.json`),
      JSON.stringify({ output: run.output, calls: run.toolCalls.map((c) => [c.id, c.name, c.arguments]) }),
    );
  });
