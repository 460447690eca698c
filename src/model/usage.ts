import type { Conversation, NeutralToolCall, NeutralUsage } from '../conversation';
import type { FixtureUsage } from '../fixtures/types';

/** About four characters a token: stable across runs, close enough for budgets and cost checks. */
function tokens(chars: number): number {
  return chars === 0 ? 0 : Math.ceil(chars / 4);
}

export function estimateInputTokens(conversation: Conversation): number {
  let chars = 0;
  for (const m of conversation.messages) {
    chars += (m.text?.length ?? 0) + 4;
    for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length;
  }
  for (const t of conversation.tools)
    chars += t.name.length + (t.description?.length ?? 0) + JSON.stringify(t.parameters ?? {}).length;
  return tokens(chars);
}

export function usageFor(
  conversation: Conversation,
  content: string | null,
  toolCalls: NeutralToolCall[],
  given: FixtureUsage | undefined,
): NeutralUsage {
  let outChars = content?.length ?? 0;
  for (const c of toolCalls) outChars += c.name.length + c.arguments.length;
  const inputTokens =
    given?.inputTokens ??
    given?.prompt_tokens ??
    given?.input_tokens ??
    given?.promptTokenCount ??
    estimateInputTokens(conversation);
  const outputTokens =
    given?.outputTokens ??
    given?.completion_tokens ??
    given?.output_tokens ??
    given?.candidatesTokenCount ??
    tokens(outChars);
  const totalTokens =
    given?.totalTokens ?? given?.total_tokens ?? given?.totalTokenCount ?? inputTokens + outputTokens;
  return {
    inputTokens,
    outputTokens,
    totalTokens,
    cachedInputTokens: given?.cachedInputTokens ?? given?.prompt_tokens_details?.cached_tokens ?? 0,
    reasoningTokens: given?.reasoningTokens ?? given?.completion_tokens_details?.reasoning_tokens ?? 0,
    ...(given?.cacheWriteInputTokens ? { cacheWriteInputTokens: given.cacheWriteInputTokens } : {}),
  };
}
