import { describe, expect, it } from '@jest/globals';
import {
  type Conversation,
  matchKeysOf,
  type NeutralMessage,
  type NeutralReply,
} from '../../../../src/conversation';
import { UnderstudyError } from '../../../../src/errors';
import { MockModel } from '../../../../src/model/mock-model';
import { fixturesFromCalls, type RecordedCall } from '../../../../src/record/build';
import { fingerprintOf } from '../../../../src/record/prompt-hash';

const tool = (name: string) => ({ name, description: `${name} tool`, parameters: { type: 'object' } });

function conv(messages: NeutralMessage[], tools: string[] = []): Conversation {
  return {
    provider: 'openai',
    protocol: 'openai.chat',
    model: 'gpt-4o',
    messages,
    tools: tools.map(tool),
    stream: false,
    streamUsage: false,
  };
}

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 0, reasoningTokens: 0 };
const says = (content: string): NeutralReply => ({
  content,
  toolCalls: [],
  finishReason: 'stop',
  usage,
  model: 'gpt-4o',
});
const calls = (...list: Array<[id: string, name: string, args: string]>): NeutralReply => ({
  content: null,
  toolCalls: list.map(([id, name, args]) => ({ id, name, arguments: args })),
  finishReason: 'tool_calls',
  usage,
  model: 'gpt-4o',
});

let n = 0;
function recorded(
  conversation: Conversation,
  reply: NeutralReply | undefined,
  extra: Partial<RecordedCall> = {},
) {
  const call: RecordedCall = {
    index: n++,
    protocol: conversation.protocol,
    conversation,
    keys: matchKeysOf(conversation),
    fingerprint: fingerprintOf(conversation),
    ...(reply ? { reply } : {}),
    ...extra,
  };
  return call;
}

/** Replays every recorded request against the fixtures the way the mock model will (each test from the start). */
function replay(fixtures: ReturnType<typeof fixturesFromCalls>, list: RecordedCall[]) {
  const model = new MockModel({ strictTurnIndex: false }).use(fixtures);
  let test: string | undefined;
  return list.map((c) => {
    if (c.test !== test) {
      model.endTest();
      model.beginTest(c.test);
      test = c.test;
    }
    const r = model.resolve(c.conversation, 'test');
    if (r.kind === 'error') return `${r.error.status}`;
    return r.kind === 'reply' ? (r.reply.content ?? r.reply.toolCalls.map((t) => t.name).join(',')) : r.kind;
  });
}

describe('fixtures from recorded calls', () => {
  it('keys each call by userMessage, turnIndex and hasToolResult, keeping ids, arguments and usage', () => {
    n = 0;
    const sys: NeutralMessage = { role: 'system', text: 'You are terse.' };
    const user: NeutralMessage = { role: 'user', text: 'Filter open items' };
    const first = recorded(
      conv([sys, user], ['applyFilter']),
      calls(['call_1', 'applyFilter', '{"status":"open"}']),
    );
    const second = recorded(
      conv(
        [
          sys,
          user,
          {
            role: 'assistant',
            text: null,
            toolCalls: [{ id: 'call_1', name: 'applyFilter', arguments: '{"status":"open"}' }],
          },
          { role: 'tool', text: '[1,2]', toolCallId: 'call_1' },
        ],
        ['applyFilter'],
      ),
      says('Found 2 open items.'),
    );
    const fixtures = fixturesFromCalls([first, second]);
    expect(fixtures).toEqual([
      {
        match: { userMessage: 'Filter open items', turnIndex: 0, hasToolResult: false },
        response: {
          toolCalls: [{ name: 'applyFilter', arguments: { status: 'open' }, id: 'call_1' }],
          usage: { inputTokens: 10, outputTokens: 5 },
        },
        metadata: {
          recordedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          requestHash: expect.stringMatching(/^[0-9a-f]{16}$/),
          promptHash: first.fingerprint.promptHash,
          systemHash: first.fingerprint.systemHash,
          toolsHash: first.fingerprint.toolsHash,
          request: {
            model: 'gpt-4o',
            system: 'You are terse.',
            tools: ['applyFilter'],
            messages: [{ role: 'user', text: 'Filter open items' }],
          },
        },
      },
      {
        match: { userMessage: 'Filter open items', turnIndex: 1, hasToolResult: true },
        response: { content: 'Found 2 open items.', usage: { inputTokens: 10, outputTokens: 5 } },
        metadata: expect.objectContaining({
          request: {
            model: 'gpt-4o',
            system: 'You are terse.',
            tools: ['applyFilter'],
            messages: [
              { role: 'user', text: 'Filter open items' },
              {
                role: 'assistant',
                toolCalls: [{ name: 'applyFilter', id: 'call_1', arguments: { status: 'open' } }],
              },
              { role: 'tool', tool: 'applyFilter', toolCallId: 'call_1', text: '[1,2]' },
            ],
          },
        }),
      },
    ]);
    expect(replay(fixtures, [first, second])).toEqual(['applyFilter', 'Found 2 open items.']);
  });

  it("adds toolName to a parent's fixture that a parallel subagent's request would also match", () => {
    n = 0;
    // The subagent's prompt contains the parent's message; its call comes first (they interleave).
    const sub = recorded(
      conv([{ role: 'user', text: 'Research hotels for: Plan a trip to Paris' }], ['search_hotels']),
      says('Hotel Lutetia.'),
    );
    const parent = recorded(
      conv([{ role: 'user', text: 'Plan a trip to Paris' }], ['delegate']),
      calls(['c1', 'delegate', '{}']),
    );
    const fixtures = fixturesFromCalls([parent, sub]);
    expect(fixtures[0].match).toEqual({
      userMessage: 'Plan a trip to Paris',
      turnIndex: 0,
      hasToolResult: false,
      toolName: 'delegate',
    });
    expect(fixtures[1].match).toEqual({
      userMessage: 'Research hotels for: Plan a trip to Paris',
      turnIndex: 0,
      hasToolResult: false,
    });
    expect(replay(fixtures, [parent, sub])).toEqual(['delegate', 'Hotel Lutetia.']);
  });

  it('adds toolCallId where two calls differ only in the tool call they answer', () => {
    n = 0;
    const thread = (id: string, result: string): NeutralMessage[] => [
      { role: 'user', text: 'Check both regions' },
      { role: 'assistant', text: null, toolCalls: [{ id, name: 'status', arguments: '{}' }] },
      { role: 'tool', text: result, toolCallId: id },
    ];
    const a = recorded(conv(thread('call_eu', 'eu ok'), ['status']), says('EU is fine.'));
    const b = recorded(conv(thread('call_us', 'us down'), ['status']), says('US is down.'));
    const fixtures = fixturesFromCalls([a, b]);
    expect(fixtures[0].match.toolCallId).toBe('call_eu');
    expect(replay(fixtures, [a, b])).toEqual(['EU is fine.', 'US is down.']);
  });

  it('gives each test its own answer to the same request: replay prefers the fixtures its test recorded', () => {
    n = 0;
    const ask = () => conv([{ role: 'user', text: 'Summarize the report' }], ['read']);
    const one = recorded(ask(), says('Short.'), { test: 'suite > first' });
    const two = recorded(ask(), says('Long.'), { test: 'suite > second' });
    const fixtures = fixturesFromCalls([one, two]);
    expect(fixtures.map((f) => f.metadata?.test)).toEqual(['suite > first', 'suite > second']);
    expect(replay(fixtures, [one, two])).toEqual(['Short.', 'Long.']);
  });

  it('serves identical requests sent one after another in recorded order (sequenceIndex)', () => {
    n = 0;
    const ask = () => conv([{ role: 'user', text: 'Roll a die' }]);
    const first = recorded(ask(), says('4'), { test: 't', startedAt: 0, endedAt: 10 });
    const second = recorded(ask(), says('2'), { test: 't', startedAt: 20, endedAt: 30 });
    const fixtures = fixturesFromCalls([first, second]);
    expect(fixtures.map((f) => f.match.sequenceIndex)).toEqual([0, 1]);
    expect(replay(fixtures, [first, second])).toEqual(['4', '2']);
  });

  it('throws naming both calls when nothing tells them apart: the same keys, sent at the same time', () => {
    n = 0;
    const ask = conv([{ role: 'user', text: 'Summarize the report' }], ['read']);
    const one = recorded(ask, says('Short.'), { test: 'suite > first', startedAt: 0, endedAt: 10 });
    const two = recorded(conv([{ role: 'user', text: 'Summarize the report' }], ['read']), says('Long.'), {
      test: 'suite > first',
      startedAt: 5,
      endedAt: 15,
    });
    let error: unknown;
    try {
      fixturesFromCalls([one, two], { where: 'harness.getRecordedFixtures()' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnderstudyError);
    expect((error as UnderstudyError).code).toBe('RECORD_AMBIGUOUS');
    const message = (error as Error).message;
    expect(message).toContain('harness.getRecordedFixtures(): two recorded model calls cannot be told apart');
    expect(message).toContain(
      'model call #0 (test "suite > first"): openai.chat, userMessage "Summarize the report"',
    );
    expect(message).toContain('model call #1 (test "suite > first")');
    expect(message).toContain('Replaying the request of #1 selects the fixture recorded for #0');
  });

  it('keeps one fixture for identical requests with identical answers', () => {
    n = 0;
    const a = recorded(conv([{ role: 'user', text: 'ping' }]), says('pong'));
    const b = recorded(conv([{ role: 'user', text: 'ping' }]), says('pong'));
    expect(fixturesFromCalls([a, b])).toHaveLength(1);
  });

  it('keeps a transient error the SDK retried, before its retry, and an error nothing retried', () => {
    n = 0;
    const ask = () => conv([{ role: 'user', text: 'Hello' }]);
    const limited = recorded(ask(), undefined, {
      error: { status: 429, type: 'rate_limit_exceeded', message: 'slow', retryAfter: 1 },
      startedAt: 0,
      endedAt: 1,
    });
    const ok = recorded(ask(), says('Hi!'), { startedAt: 2, endedAt: 3 });
    const retried = fixturesFromCalls([limited, ok]);
    expect(
      retried.map((f) => [f.match.sequenceIndex, f.response.error?.retryAfter, f.response.content]),
    ).toEqual([
      [0, 1, undefined],
      [1, undefined, 'Hi!'],
    ]);
    expect(replay(retried, [limited, ok])).toEqual(['429', 'Hi!']);
    const bad = recorded(conv([{ role: 'user', text: 'x'.repeat(3) }]), undefined, {
      error: { status: 400, type: 'invalid_request_error', message: 'too long' },
    });
    expect(fixturesFromCalls([bad])[0].response).toEqual({
      error: { message: 'too long', status: 400, type: 'invalid_request_error' },
    });
  });

  it('scrubs secrets at write time, keeps a user message key that still matches, then runs the redact hook last', () => {
    n = 0;
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz123456';
    const call = recorded(
      conv([{ role: 'user', text: `Use key ${key} to call the billing API` }]),
      says(`Configured with ${key}. Bearer abc.def.ghijklmnop set.`),
    );
    const seen: unknown[] = [];
    const [fixture] = fixturesFromCalls([call], {
      secrets: [key],
      redact: (f) => {
        seen.push(structuredClone(f.response.content));
        f.response.content = String(f.response.content).replace('Configured', 'Set up');
      },
    });
    expect(seen).toEqual(['Configured with [REDACTED]. Bearer [REDACTED] set.']);
    expect(fixture.response.content).toBe('Set up with [REDACTED]. Bearer [REDACTED] set.');
    expect(fixture.match.userMessage).toBe(' to call the billing API');
    expect(JSON.stringify(fixture)).not.toContain(key);
    expect(replay([fixture], [call])).toEqual(['Set up with [REDACTED]. Bearer [REDACTED] set.']);
  });

  describe('a redact hook that would break replay is refused, naming the hook and the field', () => {
    const refusal = (hook: (f: any) => void) => {
      n = 0;
      const call = recorded(
        conv([{ role: 'user', text: 'Sam asks: where is order A-1001?' }], ['lookup_order']),
        calls(['call_1', 'lookup_order', '{"orderId":"A-1001"}']),
        { test: 'orders > lookup' },
      );
      try {
        fixturesFromCalls([call], {
          redact: hook,
          redactName: 'understudy.model.redact',
          where: 'record mode',
        });
      } catch (error) {
        return error as UnderstudyError;
      }
      throw new Error('expected a refusal');
    };

    it('a match key it rewrote: no fixture would match the request', () => {
      const error = refusal((f) => {
        f.match.userMessage = f.match.userMessage.replace('Sam', '<name>');
      });
      expect(error.code).toBe('RECORD_REDACT_BREAKS_REPLAY');
      expect(error.message).toContain(
        'record mode: the redact hook (understudy.model.redact) changed match.userMessage of the fixture recorded for model call #0 (test "orders > lookup")',
      );
      expect(error.message).toContain('no fixture would match its request');
    });

    it('the recorded request it rewrote: every replay would call it stale', () => {
      const error = refusal((f) => {
        f.metadata.request.messages[0].text = '<name> asks: where is order A-1001?';
      });
      expect(error.message).toContain('changed metadata.request.messages[0].text');
      expect(error.message).toContain(
        'every replay would report it stale, as the user message (message 1) changed: "<name> asks',
      );
    });

    it('a tool call it renamed: a tool the request does not offer', () => {
      const error = refusal((f) => {
        f.response.toolCalls[0].name = 'find_order';
      });
      expect(error.message).toContain('changed response.toolCalls[0].name');
      expect(error.message).toContain('it would call "find_order", a tool the request does not offer');
    });

    it('leaves a hook alone that only blanks an answer', () => {
      n = 0;
      const call = recorded(conv([{ role: 'user', text: 'Card?' }]), says('It is 4111 1111 1111 1111.'));
      const [fixture] = fixturesFromCalls([call], {
        redact: (f) => {
          f.response.content = 'It is <card>.';
        },
      });
      expect(fixture.response.content).toBe('It is <card>.');
    });
  });
});
