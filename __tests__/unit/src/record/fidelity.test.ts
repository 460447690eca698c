/**
 * Replay gives back what was recorded, at the wire: a realistic provider reply (../support/
 * realistic-upstream.ts) read back as recording reads it, turned into the cassette's fixture,
 * answered again by the mock and encoded by the same codec is the reply the provider sent, byte
 * for byte once parsed. Run directly on the modules; the installed suite drives the same round
 * trip through the official SDKs, streamed too (__tests__/installed/fidelity-replay.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { type Conversation, matchKeysOf } from '../../../../src/conversation';
import { replyFrom } from '../../../../src/model/reply';
import { anthropicMessages } from '../../../../src/providers/anthropic-messages';
import { bedrockConverse } from '../../../../src/providers/bedrock-converse';
import type { ProviderCodec } from '../../../../src/providers/codec';
import { geminiGenerateContent } from '../../../../src/providers/gemini';
import { openaiChat } from '../../../../src/providers/openai-chat';
import { openaiResponses } from '../../../../src/providers/openai-responses';
import { createConversationStore } from '../../../../src/providers/store';
import { fixturesFromCalls } from '../../../../src/record/build';
import { fingerprintOf } from '../../../../src/record/prompt-hash';
import { realisticAnswer } from '../../../support/realistic-upstream';

const parameters = { type: 'object', properties: { city: { type: 'string' } } };
const QUESTION = 'What is the weather in Paris?';

const CASES: Array<{ codec: ProviderCodec; path: string; body: Record<string, unknown> }> = [
  {
    codec: openaiChat,
    path: '/chat/completions',
    body: {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: QUESTION }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters } }],
    },
  },
  {
    codec: openaiResponses,
    path: '/responses',
    body: {
      model: 'o4-mini',
      input: QUESTION,
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'medium', summary: 'auto' },
      tools: [{ type: 'function', name: 'get_weather', parameters, strict: false }],
    },
  },
  {
    codec: anthropicMessages,
    path: '/v1/messages',
    body: {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: QUESTION }],
      tools: [{ name: 'get_weather', input_schema: parameters }],
    },
  },
  {
    codec: geminiGenerateContent,
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    body: {
      contents: [{ role: 'user', parts: [{ text: QUESTION }] }],
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: parameters }] }],
    },
  },
  {
    codec: bedrockConverse,
    path: '/model/anthropic.claude-sonnet-4-5-20250929-v1:0/converse',
    body: {
      messages: [{ role: 'user', content: [{ text: QUESTION }] }],
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: parameters } } }] },
    },
  },
];

/** Records the stand-in's reply to `body`, and replays it from the fixture recording makes. */
function roundTrip(codec: ProviderCodec, path: string, body: Record<string, unknown>, call: boolean) {
  const store = createConversationStore();
  const decoded = codec.decode(body, { path, query: new URLSearchParams(), store });
  if (!decoded.ok) throw new Error(decoded.error.message);
  const conversation: Conversation = decoded.conversation;
  const sent = realisticAnswer(
    codec.protocol,
    { call, n: 3, ...(call ? {} : { result: '{"tempC":18}' }) },
    conversation,
    body,
  );
  const result = codec.reply?.decodeReply(JSON.parse(sent.body ?? ''));
  if (!result?.ok) throw new Error('the stand-in reply did not decode');
  // As recording keeps it: a reply id the provider put in a header, the requested model by default.
  const idHeader = codec.reply?.idHeader;
  const reply = {
    ...result.reply,
    model: result.reply.model || conversation.model,
    ...(idHeader ? { wire: { ...result.reply.wire, id: sent.headers[idHeader] } } : {}),
  };
  const keys = matchKeysOf(conversation);
  const [fixture] = fixturesFromCalls([
    {
      index: 0,
      protocol: codec.protocol,
      conversation,
      keys,
      fingerprint: fingerprintOf(conversation, (t) => t),
      reply,
    },
  ]);
  const replayed = replyFrom(fixture, 0, conversation, keys, codec.toolCallIdPrefix);
  const again = codec.encodeReply(replayed, conversation, {
    callIndex: 7,
    created: 1767225600,
    shaping: {},
    store: createConversationStore(),
  });
  return { sent, again, fixture };
}

describe('a recorded reply replays as the provider sent it', () => {
  for (const { codec, path, body } of CASES)
    for (const call of [true, false])
      it(`${codec.protocol}: ${call ? 'a tool call' : 'an answer'}`, () => {
        const { sent, again } = roundTrip(codec, path, body, call);
        expect(JSON.parse(again.body)).toEqual(JSON.parse(sent.body ?? ''));
        const idHeader = codec.reply?.idHeader;
        if (idHeader) expect(again.headers[idHeader]).toBe(sent.headers[idHeader]);
      });

  it('keeps in the fixture what the provider sent and a mock would make up', () => {
    const gemini = roundTrip(CASES[3].codec, CASES[3].path, CASES[3].body, true).fixture.response;
    expect(gemini.toolCalls?.[0]).toEqual({
      name: 'get_weather',
      arguments: { city: 'Paris' },
      id: null,
      thoughtSignature: expect.stringMatching(/^CiQB/),
    });
    expect(gemini).toMatchObject({ id: expect.stringMatching(/^Wq3p/) });
    const anthropic = roundTrip(CASES[2].codec, CASES[2].path, CASES[2].body, true).fixture.response;
    expect(anthropic).toMatchObject({
      reasoningSignature: expect.stringMatching(/^EqQB/),
      usage: { inputTokens: 1557, cacheWriteInputTokens: 1536 },
      serviceTier: 'standard',
    });
    const responses = roundTrip(CASES[1].codec, CASES[1].path, CASES[1].body, true).fixture.response;
    expect(responses).toMatchObject({
      reasoning: '',
      reasoningSignature: expect.stringMatching(/^gAAAAAB/),
      itemIds: { reasoning: expect.stringMatching(/^rs_/) },
      completedAt: expect.any(Number),
    });
    expect(responses.toolCalls?.[0].itemId).toMatch(/^fc_/);
    // A summary the provider sent in parts is kept in parts.
    const summarised = roundTrip(CASES[1].codec, CASES[1].path, CASES[1].body, false).fixture.response;
    expect(summarised.reasoning).toEqual([
      expect.stringMatching(/^\*\*Reading the tool result\*\*/),
      expect.stringMatching(/^\*\*Answering\*\*/),
    ]);
  });
});
