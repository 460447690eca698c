/**
 * A stream cut after any of its events, on every protocol and stream dialect, read back as the
 * client got it: the evidence of a cut reply (src/model/delivered.ts). What arrived is never more
 * than what was sent: the text is a prefix of the whole text, a call the stream did not finish is
 * incomplete with a prefix of its arguments, a call read as complete has exactly its arguments,
 * and only the whole stream gives back the whole reply.
 */
import { describe, expect, it } from '@jest/globals';
import type { Conversation, NeutralReply } from '../../../../src/conversation';
import { DIALECT_NAMES } from '../../../../src/fixtures/stream-dialects';
import { readEvents } from '../../../../src/model/delivered';
import { anthropicMessages } from '../../../../src/providers/anthropic-messages';
import { bedrockConverse } from '../../../../src/providers/bedrock-converse';
import type { ProviderCodec } from '../../../../src/providers/codec';
import { applyStreamDialect, dialectApplies } from '../../../../src/providers/dialects';
import { geminiGenerateContent } from '../../../../src/providers/gemini';
import { openaiChat } from '../../../../src/providers/openai-chat';
import { openaiResponses } from '../../../../src/providers/openai-responses';
import { isWholeJson } from '../../../../src/providers/partial-json';
import { createConversationStore } from '../../../../src/providers/store';

const CODECS: ProviderCodec[] = [
  openaiChat,
  openaiResponses,
  anthropicMessages,
  geminiGenerateContent,
  bedrockConverse,
];

const usage = {
  inputTokens: 20,
  outputTokens: 11,
  totalTokens: 31,
  cachedInputTokens: 0,
  reasoningTokens: 0,
};

const REPLIES: Record<string, NeutralReply> = {
  text: {
    content: 'It is 18 C in Paris. A storm is coming.',
    toolCalls: [],
    finishReason: 'stop',
    usage,
    model: 'm',
  },
  'text and parallel calls': {
    content: 'Sending it now.',
    toolCalls: [
      { id: 'call_a', name: 'transfer', arguments: '{"to":"alice","amount":100}' },
      { id: 'call_b', name: 'notify', arguments: '{"user":"alice","note":"sent 100"}' },
      { id: 'call_c', name: 'get_time', arguments: '{}' },
    ],
    finishReason: 'tool_calls',
    usage,
    model: 'm',
  },
};

function conversation(codec: ProviderCodec): Conversation {
  return {
    provider: codec.provider,
    protocol: codec.protocol,
    model: 'm',
    messages: [{ role: 'user', text: 'Send alice 100' }],
    tools: ['transfer', 'notify', 'get_time'].map((name) => ({ name, parameters: { type: 'object' } })),
    stream: true,
    streamUsage: true,
  };
}

function eventsOf(codec: ProviderCodec, reply: NeutralReply, chunkSize: number, dialect?: string) {
  const ctx = { callIndex: 3, created: 1767225600, shaping: { chunkSize }, store: createConversationStore() };
  const wire = codec.encodeStream(reply, conversation(codec), ctx);
  return dialect ? applyStreamDialect(dialect as never, codec.protocol, wire, reply).events : wire.events;
}

/** What the events a client got say, checked against the reply that was sent. */
function expectAtMostSent(got: NeutralReply | undefined, sent: NeutralReply): void {
  if (!got) return;
  expect(sent.content ?? '').toEqual(expect.stringContaining(got.content ?? ''));
  expect((sent.content ?? '').startsWith(got.content ?? '')).toBe(true);
  expect(got.toolCalls.length).toBeLessThanOrEqual(sent.toolCalls.length);
  got.toolCalls.forEach((call, i) => {
    const whole = sent.toolCalls[i];
    expect(call.name).toBe(whole.name);
    if (call.incomplete) {
      // What arrived of arguments that never ended: a prefix of them, never taken for whole JSON.
      expect(whole.arguments.startsWith(call.arguments)).toBe(true);
      expect(isWholeJson(call.arguments)).toBe(false);
      // `""` is how some dialects send a call without arguments: `{}`.
    } else expect(JSON.parse(call.arguments || '{}')).toEqual(JSON.parse(whole.arguments));
  });
}

function expectWhole(got: NeutralReply | undefined, sent: NeutralReply): void {
  expect(got?.content ?? '').toBe(sent.content ?? '');
  expect(got?.toolCalls.map((c) => [c.name, JSON.parse(c.arguments || '{}'), c.incomplete])).toEqual(
    sent.toolCalls.map((c) => [c.name, JSON.parse(c.arguments), undefined]),
  );
}

describe.each(CODECS.map((codec) => [codec.protocol, codec] as const))(
  '%s, cut after any event',
  (_, codec) => {
    const dialects = [undefined, ...DIALECT_NAMES];
    for (const [name, reply] of Object.entries(REPLIES))
      for (const dialect of dialects) {
        if (dialect && !dialectApplies(dialect, codec.protocol, reply, true)) continue;
        it(`${name}${dialect ? ` (${dialect})` : ''}`, () => {
          for (const chunkSize of [1, 5, 40]) {
            const events = eventsOf(codec, reply, chunkSize, dialect);
            let text = 0;
            for (let k = 0; k < events.length; k++) {
              const read = readEvents(codec.reply, events.slice(0, k), 'm');
              if (k === 0) expect(read).toBeUndefined();
              expectAtMostSent(read?.reply, reply);
              // Complete before its end only past the finish (Chat's usage chunk and [DONE] come after).
              if (read?.complete) expectWhole(read.reply, reply);
              // More of the stream never reads as less of the reply.
              const length = read?.reply.content?.length ?? 0;
              expect(length).toBeGreaterThanOrEqual(text);
              text = length;
            }
            const all = readEvents(codec.reply, events, 'm');
            expect(all?.complete).toBe(true);
            expectWhole(all?.reply, reply);
          }
        });
      }
  },
);

describe('a call cut mid-arguments', () => {
  it.each(CODECS.filter((c) => c !== geminiGenerateContent).map((c) => [c.protocol, c] as const))(
    '%s: the part that arrived, marked incomplete',
    (_, codec) => {
      const reply = REPLIES['text and parallel calls'];
      const events = eventsOf(codec, reply, 4);
      // The stream cut right after the event that carries `lice` of the first call's `{"to":"alice"`.
      const at = events.findIndex((e) =>
        (typeof e === 'string' ? e : Buffer.from(e).toString('latin1')).includes('lice'),
      );
      expect(at).toBeGreaterThan(0);
      const read = readEvents(codec.reply, events.slice(0, at + 1), 'm');
      expect(read?.complete).toBe(false);
      expect(read?.reply.content).toBe('Sending it now.');
      expect(read?.reply.toolCalls).toEqual([
        expect.objectContaining({ name: 'transfer', incomplete: true }),
      ]);
      expect(read?.reply.toolCalls[0].arguments).toBe('{"to":"alice');
      // The final usage event never came: the usage is what the events that did carry, not the reply's.
      expect(read?.reply.usage.outputTokens).not.toBe(usage.outputTokens);
    },
  );

  it('gemini sends each call whole: a cut between two lists only the first, complete', () => {
    const reply = REPLIES['text and parallel calls'];
    const events = eventsOf(geminiGenerateContent, reply, 40);
    const first = events.findIndex((e) => String(e).includes('"transfer"'));
    const read = readEvents(geminiGenerateContent.reply, events.slice(0, first + 1), 'm');
    expect(read?.complete).toBe(false);
    expect(read?.reply.toolCalls).toEqual([
      { id: expect.any(String), name: 'transfer', arguments: '{"to":"alice","amount":100}' },
    ]);
  });

  it('bedrock: a toolUse block cut before its stop keeps the fragments, not an empty object', () => {
    const reply = REPLIES['text and parallel calls'];
    const events = eventsOf(bedrockConverse, reply, 40);
    // Up to the start of the third call (get_time, no arguments yet): it is incomplete, with no input.
    const starts = events
      .map((e, i) => [Buffer.from(e as Uint8Array).toString('latin1'), i] as const)
      .filter(([text]) => text.includes('contentBlockStart'));
    const read = readEvents(bedrockConverse.reply, events.slice(0, starts[2][1] + 1), 'm');
    expect(read?.reply.toolCalls.map((c) => [c.name, c.arguments, c.incomplete])).toEqual([
      ['transfer', '{"to":"alice","amount":100}', undefined],
      ['notify', '{"user":"alice","note":"sent 100"}', undefined],
      ['get_time', '', true],
    ]);
  });
});
