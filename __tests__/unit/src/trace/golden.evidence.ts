/**
 * A test's evidence touching every attribute the trace writes: a run with a drill, files and an
 * error; model calls replied, unmatched, cut and failed; tool calls answered, failed, incomplete and
 * unanswered; operations with and without overrides; HTTP requests in and outside a run; a failed
 * expectation and what the budget left out. The golden files beside it are its trace, timeline and tree.
 */

import type { TestEvidence } from '../../../../src/trace/evidence';
import type { OtlpTrace, TestInfo } from '../../../../src/trace/otlp';

const keys = (turnIndex: number, userMessage: string | null = 'book a table') => ({
  userMessage,
  turnIndex,
  hasToolResult: turnIndex > 0,
  toolCallId: turnIndex > 0 ? 'call_1' : null,
  toolNames: ['lookup', 'book'],
  model: 'gpt-4o',
  toolResult: turnIndex > 0 ? '{"id":7}' : null,
  systemMessage: 'You book tables.',
});

export const goldenTest: TestInfo = {
  file: 'booking.test.ts',
  name: 'booking > books a table',
  status: 'failed',
  errors: [
    {
      phase: 'test',
      error: {
        name: 'Error',
        message: 'expect(run).toHaveCalledTools(...)\n\nExpected lookup then book',
        stack: 'Error: x\n    at t (booking.test.ts:3:1)',
      },
    },
    { phase: 'afterEach', error: { name: 'TypeError', message: 'cleanup failed' } },
  ],
  startedAt: 1,
  endedAt: 90,
  timeOrigin: 1_767_225_600_000,
};

export const goldenEvidence: TestEvidence = {
  timeOrigin: 1_767_225_600_000,
  omitted: {
    runs: 1,
    modelCalls: 2,
    toolCalls: 0,
    operations: 2,
    httpRequests: 1,
    released: { runs: 1, modelCalls: 3 },
    limits: { maxPayloadBytes: 1000, maxFileBytes: 100000, maxSteps: 50 },
  },
  expectation: {
    matcher: 'toHaveCalledTools',
    negated: false,
    mode: 'ordered',
    args: 'subset',
    expected: [{ name: 'lookup', args: { city: 'Paris' } }, { name: 'book' }],
    actual: [{ name: 'lookup', args: { city: 'Paris' } }, { name: 'cancel' }],
    rows: [
      { expected: 0, received: 0, ok: true },
      { expected: 1, ok: false },
      { received: 1, ok: true },
    ],
    divergence: 1,
    message: 'Expected lookup then book\nReceived lookup then cancel',
    runIndex: 0,
    source: 'task booking#1',
  },
  looseCalls: [
    {
      index: 0,
      provider: 'anthropic',
      protocol: 'anthropic-messages',
      url: 'https://api.anthropic.com/v1/messages',
      model: 'claude-sonnet-4-5',
      streamed: false,
      unmatched: true,
      matchKeys: keys(0, null),
      messages: [{ role: 'user', text: 'warm up' }],
      tools: [],
      error: { type: 'unmatched', message: 'No fixture matched the request', status: 500 } as never,
      startedAt: 2,
      durationMs: 0.5,
      phase: 'beforeEach',
    },
  ],
  sessions: [
    {
      index: 0,
      url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
      protocol: 'openai.realtime',
      closeCode: 1000,
      closeReason: 'bye',
      closedBy: 'client',
      omittedTurns: 2,
      startedAt: 10.5,
      durationMs: 60,
      turns: [
        {
          index: 0,
          user: { via: 'audio', text: 'book a table' },
          assistant: 'Let me look. Booking',
          modelCalls: [1, 2],
          toolCalls: [
            { id: 'call_1', name: 'lookup', arguments: '{"city":"Paris"}', output: { id: 7 }, at: 0 },
            { id: 'call_2', name: 'book', arguments: '{"id":', at: 12 },
          ],
          startedAt: 10.5,
          durationMs: 30,
        },
        {
          index: 1,
          user: { via: 'text', text: 'for two, please' },
          assistant: 'We o',
          modelCalls: [3],
          toolCalls: [],
          interrupted: { by: 'user', heardMs: 160, heardChars: 4, ofChars: 20 },
          startedAt: 49,
          durationMs: 12,
        },
      ],
    },
    {
      index: 1,
      url: 'wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent',
      protocol: 'gemini.live',
      closeCode: 1006,
      closedBy: 'server',
      dropped: true,
      startedAt: 62,
      durationMs: 5,
      turns: [
        {
          index: 0,
          user: { via: 'audio', text: null },
          modelCalls: [],
          toolCalls: [],
          faults: ['the socket dropped (1006, no close frame)'],
          startedAt: 62,
          durationMs: 5,
        },
      ],
    },
  ],
  looseHttp: [
    {
      method: 'GET',
      url: 'https://status.example.test/',
      status: 0,
      source: 'setupServer',
      startedAt: 3,
      durationMs: 0.25,
      phase: 'beforeEach',
    },
  ],
  runs: [
    {
      index: 0,
      kind: 'drill',
      phase: 'test',
      incomplete: false,
      input: { request: 'book a table for two' },
      output: { booked: false },
      finalMessage: 'I could not book it.',
      terminalState: 'failed',
      error: {
        name: 'TypeError',
        message: "Cannot read properties of undefined (reading 'slot')",
        stack: 'TypeError: x\n    at agent (agent.ts:10:5)\n    at run (run.ts:2:1)',
      },
      startedAt: 10,
      durationMs: 70.123456,
      drill: {
        name: 'busy-restaurant',
        build: { format: 'b@1', rules: ['busy'] },
        seed: 42,
        verdict: { ok: false },
      },
      files: [
        {
          packageId: 'fs',
          path: 'notes.md',
          change: 'modified',
          diff: '--- a/notes.md\n+++ b/notes.md\n@@ -1 +1 @@\n-old\n+new\n',
        },
      ],
      omitted: { modelCalls: 1, toolCalls: 0, operations: 2, httpRequests: 1 },
      modelCalls: [
        {
          index: 1,
          provider: 'openai',
          protocol: 'openai-chat',
          url: 'https://api.openai.com/v1/chat/completions',
          model: 'gpt-4o',
          streamed: true,
          unmatched: false,
          fixture: 'lookup-paris',
          fixtureSource: { file: 'fixtures/booking.json', path: '$.fixtures[0]' },
          turnIndexRelaxed: true,
          matchKeys: keys(0),
          messages: [
            { role: 'system', text: 'You book tables.' },
            { role: 'user', text: 'book a table' },
          ],
          omittedMessages: 3,
          tools: [
            { name: 'lookup', description: 'Find a restaurant', parameters: { type: 'object' } },
          ] as never,
          response: {
            content: null,
            toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"city":"Paris"}' }],
            finishReason: 'tool_calls',
            model: 'gpt-4o-2024-08-06',
            usage: { inputTokens: 120, outputTokens: 14 },
          } as never,
          startedAt: 11,
          durationMs: 4.5,
          phase: 'test',
        },
        {
          index: 2,
          provider: 'openai',
          protocol: 'openai-chat',
          url: 'https://api.openai.com/v1/chat/completions',
          model: 'gpt-4o',
          streamed: true,
          unmatched: false,
          fixture: '#2',
          fault: 'cut-after-2',
          matchKeys: keys(1),
          messages: [
            { role: 'user', text: 'book a table' },
            { role: 'tool', text: '{"id":7}', toolCallId: 'call_1' },
          ],
          tools: [],
          response: {
            content: 'Booking',
            toolCalls: [{ id: 'call_2', name: 'book', arguments: '{"id":' }],
            finishReason: 'stop',
            model: 'gpt-4o',
            usage: { inputTokens: 150, outputTokens: 3 },
          } as never,
          whole: {
            content: 'Booking now',
            toolCalls: [{ id: 'call_2', name: 'book', arguments: '{"id":7}' }],
            finishReason: 'tool_calls',
            model: 'gpt-4o',
            usage: { inputTokens: 150, outputTokens: 9 },
          } as never,
          cut: { reason: 'reset', delivered: 2, of: 5 },
          startedAt: 30,
          durationMs: 2,
          phase: 'test',
        },
        {
          index: 3,
          provider: 'gemini',
          protocol: 'gemini',
          url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
          model: 'gemini-2.5-flash',
          streamed: false,
          unmatched: false,
          fixture: 'overloaded',
          matchKeys: keys(2),
          messages: [{ role: 'user', text: 'again' }],
          tools: [],
          error: { type: 'overloaded', message: 'The model is overloaded', status: 529 } as never,
          startedAt: 50,
          durationMs: 1,
          phase: 'test',
        },
      ],
      toolCalls: [
        {
          id: 'call_1',
          name: 'lookup',
          arguments: { city: 'Paris' },
          result: { id: 7 },
          modelCallIndex: 0,
          fileModelCallIndex: 1,
          answered: true,
        },
        {
          id: 'call_2',
          name: 'book',
          arguments: '{"id":',
          modelCallIndex: 1,
          fileModelCallIndex: 2,
          answered: false,
          incomplete: true,
        },
        {
          id: 'call_3',
          name: 'cancel',
          arguments: { id: 7 },
          error: { code: 'BUSY', message: 'try later' },
          modelCallIndex: 1,
          fileModelCallIndex: 2,
          answered: true,
        },
        {
          id: 'call_4',
          name: 'notify',
          arguments: {},
          modelCallIndex: 2,
          fileModelCallIndex: 3,
          answered: false,
        },
      ],
      operations: [
        {
          seq: 1,
          packageId: 'restaurants',
          operationId: 'venues.find',
          input: { city: 'Paris' },
          outcome: { kind: 'ok', value: { id: 7 } },
          toolCallId: 'call_1',
          startedAt: 16,
          durationMs: 0.75,
        },
        {
          seq: 2,
          packageId: 'restaurants',
          operationId: 'tables.cancel',
          input: { id: 7 },
          outcome: { kind: 'error', error: { code: 'BUSY' } },
          override: { id: 'busy-once', scope: 'drill', matchCount: 1, nested: { a: 1 } },
          toolCallId: 'call_3',
          files: [{ path: 'log.txt', change: 'added', diff: '+cancel 7\n' }],
        },
        {
          seq: 3,
          packageId: 'mail',
          operationId: 'send',
          input: 'hello',
          outcome: 'denied',
          override: 'deny-mail',
        },
      ],
      httpRequests: [
        {
          method: 'POST',
          url: 'https://hooks.example.test/booked',
          status: 503,
          handler: 'POST https://hooks.example.test/booked',
          source: 'understudy.http.use',
          startedAt: 40,
          durationMs: 1.5,
          phase: 'test',
        },
        {
          method: 'GET',
          url: 'https://weather.example.test/now',
          status: 200,
          handler: 'GET https://weather.example.test/now',
          source: 'the handlers option',
          startedAt: 45,
          durationMs: 0.5,
          phase: 'test',
        },
      ],
    },
    {
      index: 1,
      kind: 'run',
      phase: 'afterEach',
      incomplete: true,
      startedAt: 82,
      durationMs: 3,
      modelCalls: [],
      toolCalls: [],
      operations: [],
    },
  ],
};

/** The trace with its random ids replaced by their order of appearance. */
export function stableIds(trace: OtlpTrace): OtlpTrace {
  const ids = new Map<string, string>();
  const stable = (id: string) => {
    if (!ids.has(id)) ids.set(id, `id-${ids.size}`);
    return ids.get(id)!;
  };
  for (const rs of trace.resourceSpans)
    for (const ss of rs.scopeSpans)
      for (const span of ss.spans) {
        span.traceId = stable(span.traceId);
        span.spanId = stable(span.spanId);
        if (span.parentSpanId) span.parentSpanId = stable(span.parentSpanId);
        for (const link of span.links ?? []) {
          link.traceId = stable(link.traceId);
          link.spanId = stable(link.spanId);
        }
      }
  return trace;
}
