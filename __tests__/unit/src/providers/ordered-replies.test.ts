/**
 * A reply whose text comes after a tool call goes out in that order on the protocols whose wire
 * keeps order (Responses output items, Anthropic and Bedrock content blocks, Gemini parts), plain
 * and streamed, with the indices and sequence numbers of that order; recording reads it back in
 * order. Golden samples hold the exact bytes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  type Conversation,
  type NeutralReply,
  orderOf,
  type ReplyStep,
  stepsOf,
} from '../../../../src/conversation';
import { anthropicMessages } from '../../../../src/providers/anthropic-messages';
import { bedrockConverse } from '../../../../src/providers/bedrock-converse';
import { decodeEvent, decodeMessages } from '../../../../src/providers/bedrock-converse/event-stream';
import type { ProviderCodec } from '../../../../src/providers/codec';
import { geminiGenerateContent } from '../../../../src/providers/gemini';
import { openaiChat } from '../../../../src/providers/openai-chat';
import { openaiResponses } from '../../../../src/providers/openai-responses';
import { createConversationStore } from '../../../../src/providers/store';

const dir = join(__dirname, 'ordered-golden');
/** UPDATE_GOLDEN=1 writes the samples; a review of the diff is the point of them. */
const golden = (name: string, actual: string) => {
  const file = join(dir, name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, actual);
  return readFileSync(file, 'utf8');
};

const usage = { inputTokens: 20, outputTokens: 9, totalTokens: 29, cachedInputTokens: 0, reasoningTokens: 0 };

/** Text, a call, more text, another call, a closing text: the order on every wire that keeps it. */
function replyFor(prefix: string): NeutralReply {
  return {
    content: 'Checking Paris. Then the time. Both asked.',
    toolCalls: [
      { id: `${prefix}a`, name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: `${prefix}b`, name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
    ],
    order: [
      { text: 'Checking Paris.' },
      { call: 0 },
      { text: ' Then the time.' },
      { call: 1 },
      { text: ' Both asked.' },
    ],
    finishReason: 'tool_calls',
    usage,
    model: 'm',
  };
}

const conversationFor = (codec: ProviderCodec, stream: boolean): Conversation => ({
  provider: codec.provider,
  protocol: codec.protocol,
  model: 'm',
  messages: [{ role: 'user', text: 'Weather and time in Paris?' }],
  tools: [],
  stream,
  streamUsage: true,
});
const ctx = () => ({
  callIndex: 4,
  created: 1767225600,
  shaping: { chunkSize: 10 },
  store: createConversationStore(),
});

/** Each wire's items in order, as a client sees them: `text:…` or `call:name`. */
const TEXT_AND_CALLS = [
  'text:Checking Paris.',
  'call:get_weather',
  'text: Then the time.',
  'call:get_time',
  'text: Both asked.',
];

describe('orderOf', () => {
  it('is undefined when every text comes before the calls, the order every protocol sends', () => {
    expect(orderOf([{ text: 'a' }, { text: 'b' }, { call: 0 }, { call: 1 }])).toBeUndefined();
    expect(orderOf([{ call: 0 }, { text: '' }])).toBeUndefined();
  });

  it('keeps text after a call, joining texts side by side and leaving out empty ones', () => {
    const pieces: ReplyStep[] = [{ call: 0 }, { text: 'a' }, { text: '' }, { text: 'b' }, { call: 1 }];
    expect(orderOf(pieces)).toEqual([{ call: 0 }, { text: 'ab' }, { call: 1 }]);
  });

  it('stepsOf a reply without order: its text, then its calls', () => {
    const reply = { ...replyFor('c_'), order: undefined };
    expect(stepsOf(reply)).toEqual([{ text: reply.content }, { call: 0 }, { call: 1 }]);
  });
});

describe('openai.responses: output items in order', () => {
  const reply = replyFor('call_');
  const itemsOf = (output: Array<Record<string, any>>) =>
    output.map((o) => (o.type === 'message' ? `text:${o.content[0].text}` : `call:${o.name}`));

  it('plain: a message item, a function_call, a message item…, each message its own id (golden)', () => {
    const body = openaiResponses.encodeReply(reply, conversationFor(openaiResponses, false), ctx()).body;
    const output = JSON.parse(body).output;
    expect(itemsOf(output)).toEqual(TEXT_AND_CALLS);
    expect(new Set(output.map((o: { id: string }) => o.id)).size).toBe(5);
    expect(JSON.stringify(JSON.parse(body), null, 2)).toBe(
      golden('responses-reply.json', JSON.stringify(JSON.parse(body), null, 2)),
    );
  });

  it('streamed: output_index counts up in order, sequence_number without a gap (golden)', () => {
    const wire = openaiResponses.encodeStream(reply, conversationFor(openaiResponses, true), ctx());
    const text = wire.events.join('');
    expect(text).toBe(golden('responses-stream.sse', text));
    const events = wire.events.map((e) => JSON.parse(String(e).split('data: ')[1]));
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const added = events.filter((e) => e.type === 'response.output_item.added');
    expect(added.map((e) => e.output_index)).toEqual([0, 1, 2, 3, 4]);
    expect(added.map((e) => e.item.type)).toEqual([
      'message',
      'function_call',
      'message',
      'function_call',
      'message',
    ]);
    // Each delta names the item it belongs to.
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    for (const d of deltas) expect(added[d.output_index].item.id).toBe(d.item_id);
    const done = events.at(-1);
    expect(itemsOf(done.response.output)).toEqual(TEXT_AND_CALLS);
  });

  it('keeps each item of a stored reply under its id, for item_reference', () => {
    const c = ctx();
    const body = JSON.parse(
      openaiResponses.encodeReply(reply, { ...conversationFor(openaiResponses, false) }, c).body,
    );
    for (const item of body.output) expect(c.store.get(item.id)).toBeDefined();
  });
});

describe('anthropic.messages: content blocks in order', () => {
  const reply = replyFor('toolu_');
  const blocksOf = (content: Array<Record<string, any>>) =>
    content.map((b) => (b.type === 'text' ? `text:${b.text}` : `call:${b.name}`));

  it('plain (golden)', () => {
    const body = anthropicMessages.encodeReply(reply, conversationFor(anthropicMessages, false), ctx()).body;
    expect(blocksOf(JSON.parse(body).content)).toEqual(TEXT_AND_CALLS);
    expect(body).toBe(golden('anthropic-reply.json', body));
  });

  it('streamed: block index counts up in order, each tool_use gets its own arguments (golden)', () => {
    const wire = anthropicMessages.encodeStream(reply, conversationFor(anthropicMessages, true), ctx());
    const text = wire.events.join('');
    expect(text).toBe(golden('anthropic-stream.sse', text));
    const events = wire.events.map((e) => JSON.parse(String(e).split('data: ')[1]));
    const starts = events.filter((e) => e.type === 'content_block_start');
    expect(starts.map((e) => e.index)).toEqual([0, 1, 2, 3, 4]);
    expect(starts.map((e) => e.content_block.type)).toEqual(['text', 'tool_use', 'text', 'tool_use', 'text']);
    const input = (index: number) =>
      events
        .filter((e) => e.type === 'content_block_delta' && e.index === index)
        .map((e) => e.delta.partial_json)
        .join('');
    expect(input(1)).toBe('{"city":"Paris"}');
    expect(input(3)).toBe('{"tz":"Europe/Paris"}');
  });
});

describe('gemini: parts in order', () => {
  const reply = replyFor('call_');
  const partsOf = (parts: Array<Record<string, any>>) =>
    parts.map((p) => (p.functionCall ? `call:${p.functionCall.name}` : `text:${p.text}`));

  it('plain (golden)', () => {
    const body = geminiGenerateContent.encodeReply(
      reply,
      conversationFor(geminiGenerateContent, false),
      ctx(),
    ).body;
    expect(partsOf(JSON.parse(body).candidates[0].content.parts)).toEqual(TEXT_AND_CALLS);
    expect(body).toBe(golden('gemini-reply.json', body));
  });

  it('streamed: the chunks carry the parts in order, the last one the finish reason (golden)', () => {
    const wire = geminiGenerateContent.encodeStream(
      reply,
      conversationFor(geminiGenerateContent, true),
      ctx(),
    );
    const text = wire.events.join('');
    expect(text).toBe(golden('gemini-stream.sse', text));
    const chunks = wire.events.map((e) => JSON.parse(String(e).slice('data: '.length)));
    const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
    const joined: string[] = [];
    for (const p of partsOf(parts)) {
      const last = joined.at(-1);
      if (p.startsWith('text:') && last?.startsWith('text:')) joined[joined.length - 1] = last + p.slice(5);
      else joined.push(p);
    }
    expect(joined).toEqual(TEXT_AND_CALLS);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
  });
});

describe('bedrock.converse: content blocks in order', () => {
  const reply = replyFor('tooluse_');
  const blocksOf = (content: Array<Record<string, any>>) =>
    content.map((b) => (b.toolUse ? `call:${b.toolUse.name}` : `text:${b.text}`));

  it('plain (golden)', () => {
    const body = bedrockConverse.encodeReply(reply, conversationFor(bedrockConverse, false), ctx()).body;
    expect(blocksOf(JSON.parse(body).output.message.content)).toEqual(TEXT_AND_CALLS);
    expect(body).toBe(golden('bedrock-reply.json', body));
  });

  it('streamed: contentBlockIndex counts up in order, a toolUse block opened by its start (golden)', () => {
    const wire = bedrockConverse.encodeStream(reply, conversationFor(bedrockConverse, true), ctx());
    const bytes = Buffer.concat(wire.events.map((e) => Buffer.from(e as Uint8Array)));
    const events = decodeMessages(new Uint8Array(bytes)).messages.map((m): Record<string, any> => {
      const { p: _padding, ...payload } = decodeEvent(m).payload as Record<string, any>;
      return { type: decodeEvent(m).type, ...payload };
    });
    const text = `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;
    expect(text).toBe(golden('bedrock-stream.jsonl', text));
    const stops = events.filter((e) => e.type === 'contentBlockStop').map((e) => e.contentBlockIndex);
    expect(stops).toEqual([0, 1, 2, 3, 4]);
    expect(events.filter((e) => e.type === 'contentBlockStart').map((e) => e.contentBlockIndex)).toEqual([
      1, 3,
    ]);
  });
});

describe.each([
  ['openai.responses', openaiResponses, 'call_'],
  ['anthropic.messages', anthropicMessages, 'toolu_'],
  ['gemini.generateContent', geminiGenerateContent, 'call_'],
  ['bedrock.converse', bedrockConverse, 'tooluse_'],
] as const)('%s: recording reads the order back', (_name, codec, prefix) => {
  const reply = replyFor(prefix);
  const decoder = codec.reply;
  if (!decoder) throw new Error('no reply decoder');

  it.each([1, 4, 50])('plain and streamed, chunk size %i', (chunkSize) => {
    const c = { ...ctx(), shaping: { chunkSize } };
    const plain = decoder.decodeReply(
      JSON.parse(codec.encodeReply(reply, conversationFor(codec, false), c).body),
    );
    const stream = codec.encodeStream(reply, conversationFor(codec, true), {
      ...c,
      store: createConversationStore(),
    });
    const streamed = codec.reply?.binaryStream
      ? decoder.decodeStream(
          Buffer.concat(stream.events.map((e) => Buffer.from(e as Uint8Array))).toString('latin1'),
        )
      : decoder.decodeStream(stream.events.join(''));
    for (const read of [plain, streamed]) {
      expect(read).toMatchObject({ ok: true, reply: { content: reply.content, order: reply.order } });
      if (!read.ok) continue;
      expect(read.reply.toolCalls.map((t) => [t.id, t.name, t.arguments])).toEqual(
        reply.toolCalls.map((t) => [t.id, t.name, t.arguments]),
      );
    }
  });

  it('a reply whose text all comes first reads back with no order', () => {
    const plain: NeutralReply = { ...reply, order: undefined };
    const read = decoder.decodeReply(
      JSON.parse(codec.encodeReply(plain, conversationFor(codec, false), ctx()).body),
    );
    expect(read.ok && read.reply.order).toBeUndefined();
  });
});

describe('openai.chat keeps no order', () => {
  it('is not marked as keeping it, so the model server refuses a reply in order there', () => {
    expect(openaiChat.keepsOrder).toBeUndefined();
    expect(
      [openaiResponses, anthropicMessages, geminiGenerateContent, bedrockConverse].map((c) => c.keepsOrder),
    ).toEqual([true, true, true, true]);
  });
});
