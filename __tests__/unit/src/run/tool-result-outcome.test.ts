/**
 * How a tool call ended, read from the result the agent sent back (src/run/collect.ts): a result
 * flagged as an error, or a JSON object carrying an `error`, is an error on every protocol, and
 * stays the call's result (what the agent sent back); any other result is a result alone. An agent whose own tool failed must not pass `outcome: 'ok'`.
 */
import { describe, expect, it } from '@jest/globals';
import type { NeutralMessage } from '../../../../src/conversation';
import type { ModelCall } from '../../../../src/model/call';
import { toolCallsOf } from '../../../../src/run/collect';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0, reasoningTokens: 0 };

function call(index: number, messages: NeutralMessage[], toolCalls: string[] = []): ModelCall {
  return {
    index,
    provider: 'openai',
    protocol: 'openai.chat',
    url: 'https://api.openai.com/v1/chat/completions',
    request: {},
    conversation: {
      provider: 'openai',
      protocol: 'openai.chat',
      model: 'm',
      messages: [{ role: 'user', text: 'go' }, ...messages],
      tools: [],
      stream: false,
      streamUsage: false,
    },
    response: {
      content: toolCalls.length ? null : 'done',
      toolCalls: toolCalls.map((id) => ({ id, name: 'save', arguments: '{}' })),
      finishReason: toolCalls.length ? 'tool_calls' : 'stop',
      usage,
      model: 'm',
    },
    unmatched: false,
    streamed: false,
    startedAt: 0,
    durationMs: 1,
  };
}

/** The one tool call of a two-call run whose second request carried `result` back. */
function answered(result: Omit<NeutralMessage, 'role' | 'toolCallId'>) {
  const [tc] = toolCallsOf([
    call(0, [], ['c1']),
    call(1, [{ role: 'tool', toolCallId: 'c1', ...result } as NeutralMessage]),
  ]);
  return { error: tc.error, result: tc.result };
}

describe('the outcome of a tool result the agent sent back', () => {
  it.each([
    ['an error object', '{"error":{"code":"LOCKED","message":"locked"}}'],
    ['an error string', '{"error":"the record is locked"}'],
    ['an error beside other fields', '{"ok":false,"error":"locked"}'],
  ])('%s is an error, unflagged', (_, text) => {
    expect(answered({ text })).toEqual({ error: JSON.parse(text), result: JSON.parse(text) });
  });

  it('a flagged result is an error whatever its text', () => {
    expect(answered({ text: 'it broke', isError: true })).toEqual({ error: 'it broke', result: 'it broke' });
  });

  it.each([
    ['a plain object', '{"id":"record-1"}'],
    ['a null error', '{"id":"record-1","error":null}'],
    ['a false error', '{"saved":true,"error":false}'],
    ['an array', '[{"error":"x"}]'],
    ['text that names an error', 'no error here'],
  ])('%s is a result', (_, text) => {
    const value = text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text;
    expect(answered({ text })).toEqual({ error: undefined, result: value });
  });
});
