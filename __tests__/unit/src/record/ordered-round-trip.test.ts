/**
 * A provider's reply with text after a tool call, recorded and replayed: the codec reads the
 * order back, the cassette keeps it as `blocks`, the file loads through the schema, and the
 * replay sends the same order on the same wire.
 */
import { describe, expect, it } from '@jest/globals';
import { type Conversation, matchKeysOf, type NeutralReply } from '../../../../src/conversation';
import { validateFixtureFile } from '../../../../src/fixtures/validate';
import { MockModel } from '../../../../src/model/mock-model';
import { anthropicMessages } from '../../../../src/providers/anthropic-messages';
import { bedrockConverse } from '../../../../src/providers/bedrock-converse';
import type { ProviderCodec } from '../../../../src/providers/codec';
import { geminiGenerateContent } from '../../../../src/providers/gemini';
import { openaiResponses } from '../../../../src/providers/openai-responses';
import { createConversationStore } from '../../../../src/providers/store';
import { fixturesFromCalls } from '../../../../src/record/build';
import { fingerprintOf } from '../../../../src/record/prompt-hash';

const usage = { inputTokens: 12, outputTokens: 8, totalTokens: 20, cachedInputTokens: 0, reasoningTokens: 0 };

/** What the provider sent, as the mock's own encoder writes it: a call, then text. */
const provider = (prefix: string): NeutralReply => ({
  content: 'Let me check the weather in NYC for you.',
  toolCalls: [{ id: `${prefix}rec1`, name: 'get_weather', arguments: '{"city":"NYC"}' }],
  order: [{ call: 0 }, { text: 'Let me check the weather in NYC for you.' }],
  finishReason: 'tool_calls',
  usage,
  model: 'm',
});

const conversationFor = (codec: ProviderCodec, stream: boolean): Conversation => ({
  provider: codec.provider,
  protocol: codec.protocol,
  model: 'm',
  messages: [{ role: 'user', text: "what's the weather in NYC?" }],
  tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
  stream,
  streamUsage: true,
});
const ctx = () => ({
  callIndex: 1,
  created: 1767225600,
  shaping: { chunkSize: 7 },
  store: createConversationStore(),
});

/** Each wire's text and calls in order. */
function orderOnWire(codec: ProviderCodec, body: string): string[] {
  const json = JSON.parse(body);
  const kinds: Record<string, (x: Record<string, any>) => string[]> = {
    'openai.responses': (b) => b.output.map((o: any) => (o.type === 'message' ? 'text' : 'call')),
    'anthropic.messages': (b) => b.content.map((c: any) => (c.type === 'text' ? 'text' : 'call')),
    'gemini.generateContent': (b) =>
      b.candidates[0].content.parts.map((p: any) => (p.functionCall ? 'call' : 'text')),
    'bedrock.converse': (b) => b.output.message.content.map((c: any) => (c.toolUse ? 'call' : 'text')),
  };
  return kinds[codec.protocol](json);
}

describe.each([
  ['openai.responses', openaiResponses, 'call_'],
  ['anthropic.messages', anthropicMessages, 'toolu_'],
  ['gemini.generateContent', geminiGenerateContent, 'call_'],
  ['bedrock.converse', bedrockConverse, 'tooluse_'],
] as const)('%s: recorded in order, replayed in order', (_name, codec, prefix) => {
  it.each(['plain', 'streamed'])('%s', (how) => {
    const stream = how === 'streamed';
    const decoder = codec.reply;
    if (!decoder) throw new Error('no reply decoder');
    const conversation = conversationFor(codec, stream);
    const wire = stream
      ? codec.encodeStream(provider(prefix), conversation, ctx())
      : codec.encodeReply(provider(prefix), conversation, ctx());
    const read =
      'events' in wire
        ? decoder.decodeStream(
            decoder.binaryStream
              ? Buffer.concat(wire.events.map((e) => Buffer.from(e as Uint8Array))).toString('latin1')
              : wire.events.join(''),
          )
        : decoder.decodeReply(JSON.parse(wire.body));
    if (!read.ok) throw new Error(read.error.message);
    expect(read.reply.order).toEqual([{ call: 0 }, { text: 'Let me check the weather in NYC for you.' }]);

    const fixtures = fixturesFromCalls([
      {
        index: 0,
        protocol: codec.protocol,
        conversation,
        keys: matchKeysOf(conversation),
        fingerprint: fingerprintOf(conversation),
        reply: read.reply,
      },
    ]);
    expect(fixtures[0].response).toMatchObject({
      blocks: [
        { type: 'toolCall', name: 'get_weather', arguments: { city: 'NYC' } },
        { type: 'text', text: 'Let me check the weather in NYC for you.' },
      ],
    });
    expect(fixtures[0].response.content).toBeUndefined();
    expect(fixtures[0].response.toolCalls).toBeUndefined();

    // The cassette as written and read back goes through the schema.
    const loaded = validateFixtureFile(JSON.parse(JSON.stringify({ fixtures })), { file: 'cassette.json' });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const resolved = new MockModel({ strictTurnIndex: false })
      .use(loaded.fixtures)
      .resolve(conversationFor(codec, false), 'replay', codec.toolCallIdPrefix);
    if (resolved.kind !== 'reply') throw new Error(resolved.kind);
    expect(resolved.reply.toolCalls[0]).toMatchObject({ id: `${prefix}rec1`, name: 'get_weather' });
    const replayed = codec.encodeReply(resolved.reply, conversationFor(codec, false), ctx()).body;
    expect(orderOnWire(codec, replayed)).toEqual(['call', 'text']);
  });
});
