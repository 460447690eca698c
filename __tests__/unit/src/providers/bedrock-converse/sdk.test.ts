/**
 * Amazon Bedrock Converse and ConverseStream through the official AWS SDK: plain and streamed
 * replies, a parallel tool-call loop, errors, and the replay credentials.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  type ConverseCommandOutput,
  ConverseStreamCommand,
  type Message,
  ThrottlingException,
  type ToolConfiguration,
} from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const toolConfig: ToolConfiguration = {
  tools: [
    {
      toolSpec: {
        name: 'get_weather',
        inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    },
    {
      toolSpec: {
        name: 'get_time',
        inputSchema: { json: { type: 'object', properties: { tz: { type: 'string' } } } },
      },
    },
  ],
};

const client = () => new BedrockRuntimeClient({ maxAttempts: 1 });

/** A ConverseStream response read into the message the SDK user would assemble. */
async function streamed(messages: Message[]) {
  const out = await client().send(new ConverseStreamCommand({ modelId: MODEL, messages, toolConfig }));
  const blocks: Record<
    number,
    { text?: string; toolUse?: { toolUseId?: string; name?: string; input: string } }
  > = {};
  let stopReason: string | undefined;
  let usage: unknown;
  for await (const event of out.stream ?? []) {
    if (event.contentBlockStart?.start?.toolUse) {
      const { toolUseId, name } = event.contentBlockStart.start.toolUse;
      blocks[event.contentBlockStart.contentBlockIndex ?? 0] = { toolUse: { toolUseId, name, input: '' } };
    } else if (event.contentBlockDelta) {
      const at = event.contentBlockDelta.contentBlockIndex ?? 0;
      const d = event.contentBlockDelta.delta;
      if (d?.text !== undefined) blocks[at] = { text: (blocks[at]?.text ?? '') + d.text };
      if (d?.toolUse) (blocks[at].toolUse as { input: string }).input += d.toolUse.input ?? '';
    } else if (event.messageStop) stopReason = event.messageStop.stopReason;
    else if (event.metadata) usage = event.metadata.usage;
  }
  return { blocks: Object.values(blocks), stopReason, usage };
}

describe('Bedrock Converse through @aws-sdk/client-bedrock-runtime', () => {
  it('answers ConverseCommand with text, usage and the stop reason', async () => {
    understudy.model.use(script().user('Hello').replies('Hi from Bedrock.'));
    const out: ConverseCommandOutput = await client().send(
      new ConverseCommand({
        modelId: MODEL,
        messages: [{ role: 'user', content: [{ text: 'Hello there' }] }],
      }),
    );
    expect(out.output?.message).toEqual({ role: 'assistant', content: [{ text: 'Hi from Bedrock.' }] });
    expect(out.stopReason).toBe('end_turn');
    expect(out.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: 4,
      totalTokens: expect.any(Number),
    });
    expect(out.$metadata.httpStatusCode).toBe(200);
    const [call] = understudy.model.calls;
    expect(call).toMatchObject({ provider: 'bedrock', protocol: 'bedrock.converse', streamed: false });
    expect(call.conversation.model).toBe(MODEL);
  });

  for (const stream of [false, true])
    it(`runs a parallel tool loop (${stream ? 'ConverseStream' : 'Converse'})`, async () => {
      understudy.model.use(
        script()
          .user('Weather and time in Paris')
          .callsTools([
            { name: 'get_weather', args: { city: 'Paris' } },
            { name: 'get_time', args: { tz: 'Europe/Paris' } },
          ])
          .replies('Sunny, 14:00.'),
      );
      const run = await understudy.run(async () => {
        const messages: Message[] = [{ role: 'user', content: [{ text: 'Weather and time in Paris?' }] }];
        for (let step = 0; step < 4; step++) {
          let content: Message['content'];
          let stopReason: string | undefined;
          if (stream) {
            const s = await streamed(messages);
            stopReason = s.stopReason;
            content = s.blocks.map((b) =>
              b.toolUse
                ? {
                    toolUse: {
                      toolUseId: b.toolUse.toolUseId,
                      name: b.toolUse.name,
                      input: JSON.parse(b.toolUse.input),
                    },
                  }
                : { text: b.text ?? '' },
            ) as Message['content'];
          } else {
            const out = await client().send(new ConverseCommand({ modelId: MODEL, messages, toolConfig }));
            stopReason = out.stopReason;
            content = out.output?.message?.content;
          }
          messages.push({ role: 'assistant', content });
          if (stopReason !== 'tool_use') return content?.find((b) => b.text !== undefined)?.text;
          messages.push({
            role: 'user',
            content: (content ?? []).flatMap((b): ContentBlock[] =>
              b.toolUse
                ? [
                    {
                      toolResult: {
                        toolUseId: b.toolUse.toolUseId,
                        content: [{ json: { ok: String(b.toolUse.name) } }],
                      },
                    },
                  ]
                : [],
            ),
          });
        }
        throw new Error('too many steps');
      });
      expect(run).toHaveCalledToolSequence([
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_time', args: { tz: 'Europe/Paris' } },
      ]);
      expect(run).toHaveFinalMessage('Sunny, 14:00.');
      expect(run).toHaveTerminalState('succeeded');
      expect(run.toolCalls.map((c) => c.id)).toEqual([
        expect.stringMatching(/^tooluse_/),
        expect.stringMatching(/^tooluse_/),
      ]);
      expect(run.toolCalls.every((c) => c.answered)).toBe(true);
      expect(understudy.model.calls.map((c) => c.contract)).toEqual([undefined, undefined]);
    });

  it('streams usage in the metadata event and the stop reason in messageStop', async () => {
    understudy.model.use(script().user('Count').replies('one two three four five six seven'));
    const s = await streamed([{ role: 'user', content: [{ text: 'Count' }] }]);
    expect(s.blocks).toEqual([{ text: 'one two three four five six seven' }]);
    expect(s.stopReason).toBe('end_turn');
    expect(s.usage).toMatchObject({ outputTokens: expect.any(Number) });
  });

  it('answers a fixture error as the SDK error class, from x-amzn-errortype', async () => {
    understudy.model.use(
      script().user('Slow').fails({ status: 429, message: 'Too many requests, please wait.' }),
    );
    const error = await client()
      .send(
        new ConverseCommand({
          modelId: MODEL,
          messages: [{ role: 'user', content: [{ text: 'Slow down' }] }],
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottlingException);
    expect((error as Error).message).toBe('Too many requests, please wait.');
  });

  it('replay signs with placeholder credentials; nothing real is needed', () => {
    expect(process.env.AWS_ACCESS_KEY_ID).toBe('AKIAUNDERSTUDYREPLAY0');
    expect(process.env.AWS_REGION).toBe('us-east-1');
  });
});
