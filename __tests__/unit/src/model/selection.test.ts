import { describe, expect, it } from '@jest/globals';
import type { Conversation, NeutralMessage } from '../../../../src/conversation';
import type { Fixture } from '../../../../src/fixtures/types';
import { MockModel } from '../../../../src/model/mock-model';

const sys = (text: string): NeutralMessage => ({ role: 'system', text });
const user = (text: string | null): NeutralMessage => ({ role: 'user', text });
const assistant = (toolCallIds: string[] = []): NeutralMessage => ({
  role: 'assistant',
  text: toolCallIds.length ? null : 'ok',
  ...(toolCallIds.length ? { toolCalls: toolCallIds.map((id) => ({ id, name: 't', arguments: '{}' })) } : {}),
});
const tool = (id: string, text = 'result'): NeutralMessage => ({ role: 'tool', text, toolCallId: id });

function conv(messages: NeutralMessage[], extra: Partial<Conversation> = {}): Conversation {
  return {
    provider: 'openai',
    protocol: 'openai.chat',
    model: 'gpt-4o',
    messages,
    tools: [],
    stream: false,
    streamUsage: false,
    ...extra,
  };
}

function pick(fixtures: Fixture[], c: Conversation, strict = false) {
  const model = new MockModel({ strictTurnIndex: strict });
  model.use(fixtures);
  const r = model.resolve(c, 'this request');
  return r.kind === 'unmatched' ? undefined : r.entry.fixture.id;
}

const f = (id: string, match: Fixture['match']): Fixture => ({ id, match, response: { content: id } });

describe('fixture selection (seed 001 semantics)', () => {
  it('first registered match wins', () => {
    expect(
      pick([f('a', { userMessage: 'hi' }), f('b', { userMessage: 'hi' })], conv([user('hi there')])),
    ).toBe('a');
  });

  it('userMessage is a substring of the latest user message that has text', () => {
    const c = conv([user('first question'), assistant(), user('second question'), user(null)]);
    expect(pick([f('first', { userMessage: 'first' }), f('second', { userMessage: 'second' })], c)).toBe(
      'second',
    );
  });

  it('userMessage may be a RegExp or { regex, flags }', () => {
    expect(pick([f('re', { userMessage: /^refund order \d+$/ })], conv([user('refund order 42')]))).toBe(
      're',
    );
    expect(
      pick([f('obj', { userMessage: { regex: 'REFUND', flags: 'i' } })], conv([user('refund it')])),
    ).toBe('obj');
  });

  it('a /g pattern shared between fixtures never changes answers between calls', () => {
    const g = /hello/g;
    const model = new MockModel({ strictTurnIndex: false });
    model.use([f('g', { userMessage: g })]);
    for (let i = 0; i < 3; i++) expect(model.resolve(conv([user('hello')]), 'x').kind).toBe('reply');
  });

  it('hasToolResult is scoped to the current turn: earlier turns’ tool results do not count', () => {
    const fixtures = [
      f('leg1', { userMessage: 'q', hasToolResult: false }),
      f('leg2', { userMessage: 'q', hasToolResult: true }),
    ];
    const secondTurnStart = conv([user('q1'), assistant(['c1']), tool('c1'), assistant(), user('q2')]);
    expect(pick(fixtures, secondTurnStart)).toBe('leg1');
    expect(pick(fixtures, conv([user('q2'), assistant(['c2']), tool('c2')]))).toBe('leg2');
  });

  it('turnIndex counts assistant messages; a mismatch is tolerated by default', () => {
    const c = conv([user('go'), assistant(['c1']), tool('c1'), assistant(['c2']), tool('c2')]);
    expect(
      pick([f('t1', { userMessage: 'go', turnIndex: 1 }), f('t2', { userMessage: 'go', turnIndex: 2 })], c),
    ).toBe('t2');
    expect(pick([f('t5', { userMessage: 'go', turnIndex: 5 })], c)).toBe('t5');
  });

  it('relaxed turnIndex: the closest turn at or behind the thread wins; a future turn answers only as a last resort', () => {
    const c = conv([user('go'), assistant(), user('go')]);
    expect(pick([f('t0', { turnIndex: 0 }), f('t3', { turnIndex: 3 })], c)).toBe('t0');
    expect(pick([f('t3', { turnIndex: 3 }), f('plain', {})], c)).toBe('plain');
    expect(pick([f('t3', { turnIndex: 3 }), f('t2', { turnIndex: 2 })], c)).toBe('t2');
  });

  it('at the exact turn, an earlier-registered plain fixture still wins', () => {
    const c = conv([user('go'), assistant(), user('go')]);
    expect(pick([f('plain', {}), f('t1', { turnIndex: 1 })], c)).toBe('plain');
    expect(pick([f('t1', { turnIndex: 1 }), f('plain', {})], c)).toBe('t1');
  });

  it('strictTurnIndex rejects any turnIndex mismatch', () => {
    const c = conv([user('go'), assistant(), user('go')]);
    expect(pick([f('t0', { userMessage: 'go', turnIndex: 0 })], c, true)).toBeUndefined();
    expect(pick([f('t1', { userMessage: 'go', turnIndex: 1 })], c, true)).toBe('t1');
  });

  it('toolCallId: the request must end with that tool result', () => {
    const fixtures = [f('for-a', { toolCallId: 'call_a' }), f('for-b', { toolCallId: 'call_b' })];
    expect(
      pick(fixtures, conv([user('x'), assistant(['call_a', 'call_b']), tool('call_a'), tool('call_b')])),
    ).toBe('for-b');
    expect(pick(fixtures, conv([user('x')]))).toBeUndefined();
  });

  it('toolName: the request offers that tool', () => {
    const c = conv([user('x')], { tools: [{ name: 'search' }, { name: 'refund' }] });
    expect(pick([f('nope', { toolName: 'delete' }), f('yes', { toolName: 'refund' })], c)).toBe('yes');
  });

  it('model matches exactly or a dated snapshot of the alias', () => {
    expect(pick([f('m', { model: 'gpt-4o' })], conv([user('x')], { model: 'gpt-4o-2024-08-06' }))).toBe('m');
    expect(pick([f('m', { model: 'gpt-4o' })], conv([user('x')], { model: 'gpt-4o-mini' }))).toBeUndefined();
  });

  it('systemMessage: substring of the joined system prompt; an array needs every part', () => {
    const c = conv([sys('You are Ada.'), sys('Locale: fr-FR'), user('x')]);
    expect(pick([f('s', { systemMessage: 'Ada.\nLocale' })], c)).toBe('s');
    expect(
      pick(
        [f('arr', { systemMessage: ['Ada', 'de-DE'] }), f('arr2', { systemMessage: ['Ada', 'fr-FR'] })],
        c,
      ),
    ).toBe('arr2');
  });

  it('sequenceIndex answers the n-th serve of the same match', () => {
    const model = new MockModel({ strictTurnIndex: false });
    model.use([
      { match: { userMessage: 'q', sequenceIndex: 0 }, response: { content: 'first' } },
      { match: { userMessage: 'q', sequenceIndex: 1 }, response: { content: 'second' } },
      { match: { userMessage: 'q' }, response: { content: 'after' } },
    ]);
    const answers = [0, 1, 2, 3].map(() => {
      const r = model.resolve(conv([user('q')]), 'x');
      return r.kind === 'reply' ? r.reply.content : r.kind;
    });
    expect(answers).toEqual(['first', 'second', 'after', 'after']);
  });

  it('an unmatched request lists its keys and the nearest fixtures, fewest misses first', () => {
    const model = new MockModel({ strictTurnIndex: false });
    model.use([
      f('far', { userMessage: 'zzz', toolName: 'x', hasToolResult: true }),
      f('near', { userMessage: 'refund', hasToolResult: true }),
    ]);
    const r = model.resolve(conv([user('refund order 7')]), 'this request');
    expect(r.kind).toBe('unmatched');
    const message = r.kind === 'unmatched' ? r.message : '';
    expect(message).toContain('userMessage: "refund order 7"');
    expect(message.indexOf('"near"')).toBeLessThan(message.indexOf('"far"'));
    expect(message).toContain('hasToolResult: wanted true, the request has false');
  });
});

describe('flat selection over many fixtures', () => {
  it('picks the right one of 10,000 literal fixtures and still honours registration order with unkeyed ones', () => {
    const model = new MockModel({ strictTurnIndex: false });
    const many: Fixture[] = Array.from({ length: 10_000 }, (_, i) =>
      f(`f${i}`, { userMessage: `question number ${i}.` }),
    );
    model.use([f('unkeyed-late', { toolName: 'never' }), ...many, f('catch-all', {})]);
    const r = model.resolve(conv([user('question number 9876.')]), 'x');
    expect(r.kind === 'reply' && r.entry.fixture.id).toBe('f9876');
    const none = model.resolve(conv([user('something else')]), 'x');
    expect(none.kind === 'reply' && none.entry.fixture.id).toBe('catch-all');
  });

  it('finds overlapping literals exactly like String.includes', () => {
    const model = new MockModel({ strictTurnIndex: false });
    model.use([
      f('hers', { userMessage: 'hers' }),
      f('she', { userMessage: 'she' }),
      f('he', { userMessage: 'he' }),
    ]);
    const r = model.resolve(conv([user('ushers')]), 'x');
    expect(r.kind === 'reply' && r.entry.fixture.id).toBe('hers');
    model.reset();
    model.use([f('emoji', { userMessage: '\u{1F600}b' })]);
    expect(model.resolve(conv([user('a\u{1F600}b')]), 'x').kind).toBe('reply');
  });
});

describe("a judge's call (toSatisfyJudge)", () => {
  const judgeCall = conv([sys('<rubric>\npolite\n</rubric>'), user('Give your verdict as JSON.')], {
    context: 'jest-understudy-judge',
  });
  it("is answered by a judge fixture only, never by the agent's catch-all", () => {
    expect(pick([f('catch-all', {})], judgeCall)).toBeUndefined();
    expect(
      pick(
        [f('catch-all', {}), f('judge', { context: 'jest-understudy-judge', systemMessage: 'polite' })],
        judgeCall,
      ),
    ).toBe('judge');
  });
  it("and a judge fixture never answers the agent's calls", () => {
    expect(pick([f('judge', { context: 'jest-understudy-judge' })], conv([user('hi')]))).toBeUndefined();
  });
});
