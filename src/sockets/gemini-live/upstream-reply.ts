/**
 * A Gemini Live model turn as the provider sent it (its server messages, up to `turnComplete` or
 * the `toolCall` that waits for the client's responses), read back into the neutral reply
 * recording keeps: the text, or the transcript of the audio; the function calls with their ids;
 * usage. Pure: golden samples of the API's messages test it.
 */
import type { NeutralReply, NeutralToolCall } from '../../conversation';
import type { ReplyDecodeResult } from '../../providers/codec';

type Obj = Record<string, any>;

/** Does this message end the model's turn: `turnComplete`, or function calls to answer first? */
export function endsTurn(message: Obj): boolean {
  return message.serverContent?.turnComplete === true || Array.isArray(message.toolCall?.functionCalls);
}

function usageOf(messages: readonly Obj[]): NeutralReply['usage'] {
  // Each usageMetadata counts the session so far: the turn's is the last one.
  const u: Obj = messages.findLast((m) => m.usageMetadata)?.usageMetadata ?? {};
  const inputTokens = Number(u.promptTokenCount ?? 0);
  const outputTokens = Number(u.responseTokenCount ?? u.candidatesTokenCount ?? 0);
  return {
    inputTokens,
    outputTokens,
    totalTokens: Number(u.totalTokenCount ?? inputTokens + outputTokens),
    cachedInputTokens: Number(u.cachedContentTokenCount ?? 0),
    reasoningTokens: Number(u.thoughtsTokenCount ?? 0),
  };
}

/** The turn's messages; `complete` is false when they end before the turn does. */
export function liveReplyOf(messages: readonly Obj[], model: string): ReplyDecodeResult {
  let text = '';
  let transcript = '';
  const toolCalls: NeutralToolCall[] = [];
  for (const m of messages) {
    const content = m.serverContent;
    for (const part of content?.modelTurn?.parts ?? [])
      if (typeof part?.text === 'string' && !part.thought) text += part.text;
    if (typeof content?.outputTranscription?.text === 'string')
      transcript += content.outputTranscription.text;
    for (const call of m.toolCall?.functionCalls ?? [])
      toolCalls.push({
        // A call sent without an id is answered without one (the recording derives one).
        id: typeof call.id === 'string' ? call.id : '',
        name: String(call.name ?? ''),
        arguments: JSON.stringify(call.args ?? {}),
        ...(typeof call.id !== 'string' && { anonymous: true }),
      });
  }
  // An audio answer carries its words in the output transcription.
  const said = text !== '' ? text : transcript;
  const reply: NeutralReply = {
    content: said === '' && toolCalls.length > 0 ? null : said,
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    usage: usageOf(messages),
    model,
  };
  return { ok: true, reply, complete: messages.some(endsTurn) };
}
