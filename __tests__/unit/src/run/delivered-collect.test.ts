/**
 * A run collected from model calls whose replies the wire cut short (src/run/collect.ts): the
 * final message, the tool calls and the terminal state come from what reached the client.
 */
import { describe, expect, it } from '@jest/globals';
import type { NeutralReply } from '../../../../src/conversation';
import type { ModelCall, ModelCallCut } from '../../../../src/model/call';
import { cutCall } from '../../../../src/model/delivered';
import { finalMessageOf, terminalStateOf, toolCallsOf } from '../../../../src/run/collect';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0, reasoningTokens: 0 };

function call(index: number, response: Partial<NeutralReply>, toolResults: string[] = []): ModelCall {
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
      messages: [
        { role: 'user', text: 'go' },
        ...toolResults.map((id) => ({ role: 'tool' as const, text: '{"ok":true}', toolCallId: id })),
      ],
      tools: [],
      stream: true,
      streamUsage: false,
    },
    response: { content: null, toolCalls: [], finishReason: 'stop', usage, model: 'm', ...response },
    unmatched: false,
    streamed: true,
    startedAt: 0,
    durationMs: 1,
  };
}

const cut = (c: ModelCall, reply: Partial<NeutralReply> | undefined, how: Partial<ModelCallCut> = {}) => {
  cutCall(
    c,
    { reason: 'truncated', delivered: 3, of: 9, ...how },
    reply && { content: null, toolCalls: [], finishReason: 'stop', usage, model: 'm', ...reply },
  );
  return c;
};

describe('finalMessageOf', () => {
  it('is the last text that arrived whole', () => {
    expect(
      finalMessageOf([call(0, { content: 'first' }), call(1, { content: 'It is 18 C in Paris.' })]),
    ).toBe('It is 18 C in Paris.');
  });

  it('is no cut reply, and no earlier one either: the last exchange did not end with it', () => {
    const calls = [
      call(0, { content: 'Let me check.' }),
      cut(call(1, { content: 'It is 18 C in Paris. A storm is coming.' }), { content: 'It is 18 C in P' }),
    ];
    expect(finalMessageOf(calls)).toBeUndefined();
    // A cut reply of which nothing readable arrived is no final message either.
    expect(
      finalMessageOf([call(0, { content: 'Let me check.' }), cut(call(1, { content: 'x' }), undefined)]),
    ).toBe(undefined);
  });

  it('is the answer of a later call that arrived whole, after a cut one', () => {
    const calls = [
      cut(call(0, { content: 'It is 18' }), { content: 'It' }),
      call(1, { content: 'Retried: sunny.' }),
    ];
    expect(finalMessageOf(calls)).toBe('Retried: sunny.');
  });
});

describe('toolCallsOf', () => {
  it('lists the calls that arrived: one whose arguments never ended is incomplete and never answered', () => {
    const asked = call(0, {
      toolCalls: [
        { id: 'a', name: 'transfer', arguments: '{"to":"alice","amount":100}' },
        { id: 'b', name: 'notify', arguments: '{"user":"alice"}' },
      ],
    });
    cut(asked, {
      toolCalls: [
        { id: 'a', name: 'transfer', arguments: '{"to":"alice","amount":100}' },
        { id: 'b', name: 'notify', arguments: '{"user":"al', incomplete: true },
      ],
    });
    // Even a result carried back for the incomplete call does not make it answered.
    const later = call(1, { content: 'done' }, ['a', 'b']);
    const calls = toolCallsOf([asked, later]);
    expect(calls).toEqual([
      expect.objectContaining({ name: 'transfer', arguments: { to: 'alice', amount: 100 }, answered: true }),
      {
        id: 'b',
        name: 'notify',
        arguments: {},
        rawArguments: '{"user":"al',
        modelCallIndex: 0,
        fileModelCallIndex: 0,
        answered: false,
        incomplete: true,
      },
    ]);
    expect(calls[0]).not.toHaveProperty('incomplete');
  });

  it("keeps the whole values of an incomplete call's arguments", () => {
    const asked = cut(call(0, {}), {
      toolCalls: [{ id: 'a', name: 'transfer', arguments: '{"to":"alice","amount":10', incomplete: true }],
    });
    expect(toolCallsOf([asked])[0]).toMatchObject({ arguments: { to: 'alice' }, incomplete: true });
  });
});

describe('terminalStateOf', () => {
  it('is failed when the last reply was cut, whatever arrived of it', () => {
    expect(terminalStateOf([cut(call(0, { content: 'x' }), { content: 'x' })], 'returned', undefined)).toBe(
      'failed',
    );
    expect(
      terminalStateOf(
        [cut(call(0, { content: 'x' }), undefined, { reason: 'aborted' })],
        'returned',
        undefined,
      ),
    ).toBe('failed');
  });

  it('is succeeded when a cut reply was followed by one that arrived whole', () => {
    expect(
      terminalStateOf(
        [cut(call(0, { content: 'x' }), { content: '' }), call(1, { content: 'ok' })],
        'returned',
        undefined,
      ),
    ).toBe('succeeded');
  });
});

describe('cutCall', () => {
  it('keeps the reply that was sent as `whole`, and a later, shorter cut replaces the first', () => {
    const c = call(0, { content: 'It is 18 C in Paris.' });
    cut(c, { content: 'It is 18 C' });
    cut(c, { content: 'It' }, { reason: 'aborted', delivered: 1 });
    expect(c.whole?.content).toBe('It is 18 C in Paris.');
    expect(c.response?.content).toBe('It');
    expect(c.cut).toEqual({ reason: 'aborted', delivered: 1, of: 9 });
    cut(c, undefined, { reason: 'aborted', delivered: 0 });
    expect(c).not.toHaveProperty('response');
    expect(c.whole?.content).toBe('It is 18 C in Paris.');
  });
});
