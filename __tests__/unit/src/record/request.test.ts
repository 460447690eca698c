import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Conversation, NeutralMessage } from '../../../../src/conversation';
import type { Fixture } from '../../../../src/fixtures/types';
import { parseAge } from '../../../../src/record/age';
import { mergeCassette, readCassette, writeCassette } from '../../../../src/record/cassette';
import { PiiScanner, piiKinds } from '../../../../src/record/pii';
import { requestOf, sameText } from '../../../../src/record/request';
import { firstDifference } from '../../../../src/record/request-diff';

const conv = (messages: NeutralMessage[], extra: Partial<Conversation> = {}): Conversation => ({
  provider: 'openai',
  protocol: 'openai.chat',
  model: 'gpt-4o',
  messages,
  tools: [{ name: 'lookup_order' }, { name: 'issue_refund' }],
  stream: false,
  streamUsage: false,
  ...extra,
});

const thread = (status: string, name = 'Sam'): NeutralMessage[] => [
  { role: 'system', text: 'You are a support agent.' },
  { role: 'user', text: `My name is ${name}. Refund order A-1001.` },
  {
    role: 'assistant',
    text: null,
    toolCalls: [{ id: 'call_lookup_A1001', name: 'lookup_order', arguments: '{"orderId":"A-1001"}' }],
  },
  { role: 'tool', text: JSON.stringify({ orderId: 'A-1001', status }), toolCallId: 'call_lookup_A1001' },
];

const diff = (a: Conversation, b: Conversation, bodyA?: unknown, bodyB?: unknown) =>
  firstDifference(requestOf(a, bodyA), requestOf(b, bodyB), { recorded: 'x', live: 'x' });

describe('the first difference between a recorded request and a live one, in words', () => {
  it('says nothing when nothing changed', () => {
    expect(diff(conv(thread('refunded')), conv(thread('refunded')))).toBeUndefined();
  });

  it('names a changed tool result by its tool, call id and field', () => {
    expect(diff(conv(thread('refunded')), conv(thread('already_refunded')))).toBe(
      'the tool result of lookup_order (call_lookup_A1001) changed: status "refunded" → "already_refunded"',
    );
  });

  it('names a changed model, system prompt, earlier message, tool arguments and sampling setting', () => {
    expect(diff(conv(thread('x')), conv(thread('x'), { model: 'gpt-4.1' }))).toBe(
      'the model changed: "gpt-4o" → "gpt-4.1"',
    );
    const system = thread('x');
    system[0] = { role: 'system', text: 'You are a support agent. Be terse.' };
    expect(diff(conv(thread('x')), conv(system))).toBe(
      'the system prompt changed: "You are a support agent." → "You are a support agent. Be terse."',
    );
    expect(diff(conv(thread('x')), conv(thread('x', 'Alex')))).toBe(
      'the user message (message 1) changed: "My name is Sam. Refund order A-1001." → "My name is Alex. Refund order A-1001."',
    );
    const args = thread('x');
    args[2] = {
      ...args[2],
      toolCalls: [{ id: 'call_lookup_A1001', name: 'lookup_order', arguments: '{"orderId":"B-2"}' }],
    };
    expect(diff(conv(thread('x')), conv(args))).toBe(
      'the arguments of lookup_order (call_lookup_A1001) changed: orderId "A-1001" → "B-2"',
    );
    expect(diff(conv(thread('x')), conv(thread('x')), { temperature: 0 }, { temperature: 0.7 })).toBe(
      'the sampling settings changed: temperature 0 → 0.7',
    );
  });

  it('names added and removed tools, and a changed schema behind the same names', () => {
    const renamed = conv(thread('x'), { tools: [{ name: 'find_order' }, { name: 'issue_refund' }] });
    expect(diff(conv(thread('x')), renamed)).toBe(
      'the tool manifest changed (added "find_order"; removed "lookup_order")',
    );
    expect(
      firstDifference(requestOf(conv(thread('x')), undefined), requestOf(conv(thread('x')), undefined), {
        recorded: 'a',
        live: 'b',
      }),
    ).toBe('the tool manifest changed (same tool names: a description or a parameter schema differs)');
  });

  it('says how many messages were added or dropped', () => {
    const longer = [...thread('x'), { role: 'user' as const, text: 'Thanks!' }];
    expect(diff(conv(thread('x')), conv(longer))).toBe(
      'the request has 1 more message than the recorded one (from message 4: a user message "Thanks!")',
    );
    expect(diff(conv(longer), conv(thread('x')))).toBe(
      'the request has 1 message fewer than the recorded one (it ends at message 3)',
    );
  });

  it('lets a [REDACTED] secret in the recording stand for whatever replay has there', () => {
    expect(sameText('key=[REDACTED] ok', 'key=sk-understudy-replay ok')).toBe(true);
    expect(sameText('key=[REDACTED] ok', 'key=abc not ok')).toBe(false);
  });
});

describe('personal data as placeholders', () => {
  it('numbers each value in the order it appears, the same value keeping its placeholder', () => {
    const pii = new PiiScanner(piiKinds(true));
    expect(pii.replace('Mail jane@example.com or bob@example.org, then jane@example.com again.')).toBe(
      'Mail <email-1> or <email-2>, then <email-1> again.',
    );
    expect(
      pii.replace('Card 4111 1111 1111 1111, phone +1 415-555-0100, IBAN GB82 WEST 1234 5698 7654 32'),
    ).toBe('Card <card-1>, phone <phone-1>, IBAN <iban-1>');
    expect(pii.restore('Sent to <email-2>; <email-9> stays.')).toBe(
      'Sent to bob@example.org; <email-9> stays.',
    );
  });

  it('leaves look-alikes: order numbers that fail Luhn, bare ids, dates', () => {
    const pii = new PiiScanner(piiKinds(true));
    const text = 'Order 1234 5678 9012 3456 on 2026-01-01, ticket 1767225600, order A-1001, v1.2.3.';
    expect(pii.replace(text)).toBe(text);
  });

  it('replaces only the kinds asked for', () => {
    const pii = new PiiScanner(piiKinds(['phone']));
    expect(pii.replace('jane@example.com, +44 20 7946 0958, (415) 555-0100')).toBe(
      'jane@example.com, <phone-1>, <phone-2>',
    );
  });
});

describe('merging a cassette', () => {
  const f = (
    test: string | undefined,
    content: string,
    recordedAt = '2026-01-01T00:00:00.000Z',
  ): Fixture => ({
    match: { userMessage: content },
    response: { content },
    metadata: { ...(test ? { test } : {}), recordedAt },
  });

  it('record: re-records the groups of tests that ran, in place, and keeps the others', () => {
    const existing = [f('a', 'a1'), f('a', 'a2'), f('b', 'b1'), f('c', 'c1')];
    const fresh = [f('b', 'b1', '2026-02-01T00:00:00.000Z'), f('b', 'b2')];
    const { fixtures, counts } = mergeCassette(existing, fresh, {
      mode: 'record',
      ran: new Set(['b']),
      fullRun: false,
    });
    expect(fixtures.map((x) => x.response.content)).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
    expect(counts).toEqual({ added: 1, removed: 0, unchanged: 1, kept: 3 });
  });

  it('record: a test that ran and no longer calls the model loses its fixtures; unlabelled ones go on a full run', () => {
    const existing = [f(undefined, 'old'), f('a', 'a1'), f('b', 'b1')];
    const partial = mergeCassette(existing, [], { mode: 'record', ran: new Set(['a']), fullRun: false });
    expect(partial.fixtures.map((x) => x.response.content)).toEqual(['old', 'b1']);
    expect(partial.counts.removed).toBe(1);
    const full = mergeCassette(existing, [f('a', 'a1')], {
      mode: 'record',
      ran: new Set(['a', 'b']),
      fullRun: true,
    });
    expect(full.fixtures.map((x) => x.response.content)).toEqual(['a1']);
  });

  it('writes YAML when the cassette path says so (cassetteFormat: yaml), and reads it back', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'understudy-yaml-')), 'a.test.ts.cassette.yaml');
    const counts = { added: 1, removed: 0, unchanged: 0, kept: 0 };
    expect(writeCassette(path, [f('a', 'x')], counts, 'record').state).toBe('new');
    expect(readFileSync(path, 'utf8')).toContain('fixtures:\n  - match:\n      userMessage: x\n');
    expect(readCassette(path).map((x) => x.metadata?.test)).toEqual(['a']);
    expect(writeCassette(path, [f('a', 'x')], { ...counts, added: 0, unchanged: 1 }, 'record').state).toBe(
      'unchanged',
    );
  });

  it("record-missing: adds each test's new fixtures after its group, new tests at the end", () => {
    const existing = [f('a', 'a1'), f('b', 'b1')];
    const { fixtures, counts } = mergeCassette(existing, [f('a', 'a2'), f('z', 'z1')], {
      mode: 'record-missing',
      ran: new Set(['a', 'b', 'z']),
      fullRun: true,
    });
    expect(fixtures.map((x) => x.response.content)).toEqual(['a1', 'a2', 'b1', 'z1']);
    expect(counts).toEqual({ added: 2, removed: 0, unchanged: 0, kept: 2 });
  });
});

describe('cassetteMaxAge', () => {
  it('reads ages in ms, s, m, h, d, w, y', () => {
    expect(parseAge('90d').ms).toBe(90 * 86_400_000);
    expect(parseAge(' 12h ').text).toBe('12h');
    expect(() => parseAge('ninety days')).toThrow('not an age: "ninety days"');
  });
});
