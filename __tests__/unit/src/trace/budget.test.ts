import { describe, expect, it } from '@jest/globals';
import type { ModelCall } from '../../../../src/model/call';
import { EvidenceLog } from '../../../../src/run/evidence';
import {
  cutText,
  describeOmissions,
  fitted,
  keptMessages,
  keptSteps,
  TRACE_LIMITS,
  type TraceLimits,
} from '../../../../src/trace/budget';
import { runSpans } from '../../../../src/trace/otlp';
import { toPlain } from '../../../../src/trace/plain';

const KEY = 'corp-gateway-secret-XYZ987';
const scrub = (text: string) => text.split(KEY).join('[REDACTED]');

function call(index: number, text = `question ${index}`): ModelCall {
  return {
    index,
    provider: 'openai',
    protocol: 'openai.chat',
    url: 'https://api.openai.com/v1/chat/completions',
    request: {},
    conversation: {
      provider: 'openai',
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', text: 'terse' },
        { role: 'user', text },
      ],
      tools: [],
      stream: false,
      streamUsage: false,
    } as unknown as ModelCall['conversation'],
    unmatched: false,
    streamed: false,
    startedAt: index,
    durationMs: 1,
  };
}

describe('cutting what a trace keeps', () => {
  it('scrubs a string before cutting it, so the cut never keeps the start of a key', () => {
    const text = `${'a'.repeat(95)}${KEY} and more`;
    const cut = cutText(text, 100, scrub);
    expect(cut).not.toContain('corp-');
    expect(cut).toMatch(/^a{95}\[REDA… \[\d+ more characters left out\]$/);
    expect(cutText('short', 100, scrub)).toBe('short');
  });

  it('cuts long lists and objects of free-form data, saying how much it left out', () => {
    const plain = toPlain(
      {
        list: Array.from({ length: 50 }, (_, i) => i),
        wide: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, i])),
      },
      { maxItems: 5, maxKeys: 5 },
    ) as Record<string, unknown>;
    expect(plain.list).toEqual([0, 1, '[46 more items left out]', 48, 49]);
    expect(plain.wide).toEqual({ k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, '…': '[4 more items left out]' });
  });

  it('keeps the system messages and the latest others of a long conversation', () => {
    const messages = [
      { role: 'system', n: 0 },
      ...Array.from({ length: 20 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', n: i + 1 })),
    ];
    const kept = keptMessages(messages, 5);
    expect(kept.messages.map((m) => m.n)).toEqual([0, 17, 18, 19, 20]);
    expect(kept.omitted).toBe(16);
  });

  it('tightens the limits of a payload over its budget until it fits', () => {
    const limits: TraceLimits = { ...TRACE_LIMITS, maxPayloadBytes: 1_000 };
    const { payload, bytes } = fitted(limits, (l) =>
      toPlain({ text: 'x'.repeat(50_000) }, { maxString: l.maxString }),
    );
    expect(bytes).toBeLessThanOrEqual(1_000);
    expect((payload as { text: string }).text).toContain('more characters left out');
  });

  it('keeps steps from both ends until the budget is spent', () => {
    expect([...keptSteps(10, () => 10, { maxFileBytes: 35, maxSteps: 100 })].sort((a, b) => a - b)).toEqual([
      0, 1, 9,
    ]);
    expect(keptSteps(10, () => 1, { maxFileBytes: 100, maxSteps: 4 }).size).toBe(4);
  });

  it('says in one sentence what it left out', () => {
    expect(
      describeOmissions({
        runs: 2,
        modelCalls: 1000,
        toolCalls: 0,
        operations: 0,
        released: { runs: 0, modelCalls: 5 },
        limits: { maxFileBytes: 6 * 1024 * 1024, maxPayloadBytes: 65536, maxSteps: 4000 },
      }),
    ).toBe(
      'This trace leaves out 2 runs and 1,000 model calls from the middle of the test (a trace keeps 6 MB and 4,000 steps at most, 64 KB per payload). understudy.model.reset() let go of 5 model calls and 0 runs made before it.',
    );
  });
});

describe('the evidence of a test', () => {
  it('lets go of ended runs and earlier calls on release, and counts them', () => {
    const log = new EvidenceLog({});
    log.testStarted();
    for (let i = 0; i < 3; i++) {
      const calls = [call(i)];
      log.noteCall(calls[0]);
      log
        .register(calls, i, 'in')
        .complete({ modelCalls: calls, toolCalls: [], operations: [], durationMs: 1 } as never);
    }
    const going = [call(9)];
    log.register(going, 9, 'still running');
    log.noteCall(going[0]);
    log.release();
    const evidence = log.evidence();
    expect(evidence.runs.map((r) => [r.input, r.incomplete])).toEqual([['still running', true]]);
    expect(evidence.runs[0].modelCalls.map((c) => c.index)).toEqual([9]);
    expect(evidence.omitted?.released).toEqual({ runs: 3, modelCalls: 4 });
  });

  it('keeps part of one long run, and its span still counts every call', () => {
    const limits: TraceLimits = { ...TRACE_LIMITS, maxFileBytes: 40_000 };
    const log = new EvidenceLog({}, limits);
    log.testStarted();
    const calls = Array.from({ length: 200 }, (_, i) => call(i));
    for (const c of calls) log.noteCall(c);
    log
      .register(calls, 0, 'in')
      .complete({ modelCalls: calls, toolCalls: [], operations: [], durationMs: 1 } as never);
    const evidence = log.evidence();
    const [run] = evidence.runs;
    expect(run.modelCalls.length).toBeLessThan(200);
    expect(run.omitted?.modelCalls).toBe(200 - run.modelCalls.length);
    expect(evidence.omitted?.modelCalls).toBe(run.omitted?.modelCalls);
    const [span] = runSpans(run, '0'.repeat(32), 0);
    expect(span.attributes).toContainEqual({ key: 'understudy.model_calls', value: { intValue: '200' } });
    expect(span.attributes.find((a) => a.key === 'understudy.run.omitted')).toBeDefined();
  });

  it('keeps the first and last steps within the budget, scrubbed, and counts the rest', () => {
    const limits: TraceLimits = {
      maxString: 200,
      maxItems: 10,
      maxKeys: 200,
      maxMessages: 4,
      maxPayloadBytes: 4_000,
      maxFileBytes: 60_000,
      maxSteps: 1_000,
    };
    process.env.BUDGET_TEST_API_KEY = KEY;
    try {
      const log = new EvidenceLog({}, limits);
      log.testStarted();
      for (let i = 0; i < 300; i++) log.noteCall(call(i, `question ${i} ${'z'.repeat(150)}${KEY}`));
      const evidence = log.evidence();
      const kept = evidence.looseCalls.map((c) => c.index);
      expect(kept.length).toBeGreaterThan(5);
      expect(kept.length).toBeLessThan(300);
      expect(kept).toContain(0);
      expect(kept).toContain(299);
      expect(evidence.omitted?.modelCalls).toBe(300 - kept.length);
      expect(JSON.stringify(evidence)).not.toContain('corp-');
    } finally {
      delete process.env.BUDGET_TEST_API_KEY;
    }
  });
});
