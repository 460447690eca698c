/** The replies and contexts the dialect golden samples are made from (see dialects.test.ts). */
import type { Conversation, NeutralReply } from '../../../../../src/conversation';
import { anthropicMessages } from '../../../../../src/providers/anthropic-messages';
import { bedrockConverse } from '../../../../../src/providers/bedrock-converse';
import type { ProviderCodec } from '../../../../../src/providers/codec';
import { geminiGenerateContent } from '../../../../../src/providers/gemini';
import { openaiChat } from '../../../../../src/providers/openai-chat';
import { openaiResponses } from '../../../../../src/providers/openai-responses';
import { createConversationStore } from '../../../../../src/providers/store';

export const usage = {
  inputTokens: 42,
  outputTokens: 12,
  totalTokens: 54,
  cachedInputTokens: 0,
  reasoningTokens: 0,
};

/** Text, then a call with arguments and a call without: every dialect has something to change. */
export const reply: NeutralReply = {
  content: 'Checking both.',
  toolCalls: [
    { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_b', name: 'get_time', arguments: '{}' },
  ],
  finishReason: 'tool_calls',
  usage,
  model: 'm',
};

export const CODECS: Record<string, ProviderCodec> = {
  'openai.chat': openaiChat,
  'openai.responses': openaiResponses,
  'anthropic.messages': anthropicMessages,
  'gemini.generateContent': geminiGenerateContent,
  'bedrock.converse': bedrockConverse,
};

export function conversationFor(protocol: string, stream = true): Conversation {
  const codec = CODECS[protocol];
  return {
    provider: codec.provider,
    protocol,
    model: 'm',
    messages: [{ role: 'user', text: 'Weather and time in Paris?' }],
    tools: [],
    stream,
    streamUsage: true,
  };
}

export const ctx = () => ({
  callIndex: 3,
  created: 1767225600,
  shaping: { chunkSize: 8 },
  store: createConversationStore(),
});

/** A stream as text: SSE as sent; Bedrock's binary messages as one JSON line per message. */
export function streamText(protocol: string, events: Array<string | Uint8Array>): string {
  if (protocol !== 'bedrock.converse') return events.join('');
  const {
    decodeEvent,
    decodeMessages,
  } = require('../../../../../src/providers/bedrock-converse/event-stream');
  return events
    .map((e) => JSON.stringify(decodeEvent(decodeMessages(e as Uint8Array).messages[0])))
    .join('\n')
    .concat('\n');
}

export const extensionOf = (protocol: string) => (protocol === 'bedrock.converse' ? 'events.jsonl' : 'sse');
