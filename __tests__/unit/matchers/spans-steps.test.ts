/**
 * toHaveSpans and toHaveStepCount on real runs: a small agent on the OpenAI wire protocol
 * (plain fetch), under Jest's fake timers, so a fixture's latency is exact span time.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { failureOf } from './helpers';

afterEach(() => {
  jest.useRealTimers();
});

type Message = { role: string; content: string | null; tool_calls?: any[]; tool_call_id?: string };

/** Asks the model, answers each tool call (lookup fails), until it replies with text. */
async function agent(question: string): Promise<string> {
  const messages: Message[] = [{ role: 'user', content: question }];
  for (let step = 0; step < 5; step++) {
    const response = await fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages,
        tools: [{ type: 'function', function: { name: 'lookup' } }],
      }),
    });
    const message = (await response.json()).choices[0].message as Message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content ?? '';
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ found: true }) });
  }
  throw new Error('too many steps');
}

async function slowRun() {
  jest.useFakeTimers({ doNotFake: ['queueMicrotask'] });
  understudy.model.use([
    ...script()
      .user('where is A-1')
      .callsTool('lookup', { id: 'A-1' })
      .build()
      .map((f) => ({ ...f, latency: 30_000 })),
    ...script()
      .user('where is A-1')
      .callsTool('lookup', { id: 'A-1' })
      .replies('It shipped.')
      .build()
      .slice(1),
  ]);
  const pending = understudy.run(() => agent('where is A-1'));
  await jest.advanceTimersByTimeAsync(30_000);
  return pending;
}

describe('toHaveSpans', () => {
  it("bounds span counts and durations on the test's clock", async () => {
    const run = await slowRun();
    expect(run).toHaveSpans({ kind: 'model', count: 2 });
    expect(run).toHaveSpans({
      name: 'execute_tool lookup',
      count: 1,
      attributes: { 'gen_ai.tool.name': 'lookup' },
    });
    expect(run).toHaveSpans({
      kind: 'model',
      name: /^chat gpt-4o/,
      attributes: { 'understudy.match.turn_index': 0 },
      durationMs: 30_000,
    });
    expect(run).toHaveSpans({
      kind: 'model',
      attributes: { 'understudy.match.turn_index': 1 },
      durationMs: { max: 0 },
    });
    expect(run).toHaveSpans({ status: 'error', count: 0 });
    expect(run.trace).toHaveSpans({ kind: 'run', count: 1, durationMs: { min: 30_000 } });

    const slow = failureOf(() => expect(run).toHaveSpans({ kind: 'model', durationMs: { max: 1000 } }));
    expect(slow).toContain('Expected: at least 1 span matching { kind model }, each lasting at most 1000 ms');
    expect(slow).toContain('Received: 2 of 4 spans match:');
    expect(slow).toMatch(/✗ chat gpt-4o-mini +ok +30000 ms/);
    expect(slow).toContain('"chat gpt-4o-mini" lasted 30000 ms, expected at most 1000 ms');
  });

  it('counts error spans, and fails when there are some', async () => {
    understudy.model.use(script().user('where is A-2').fails({ status: 400, message: 'bad request' }));
    const run = await understudy.run(() => agent('where is A-2').catch((e) => String(e)));
    expect(run).toHaveSpans({ status: 'error', kind: 'model', count: 1 });
    const message = failureOf(() => expect(run).toHaveSpans({ status: 'error', count: 0 }));
    expect(message).toContain('Expected: exactly 0 spans matching { status error }');
    expect(message).toMatch(/✓ chat gpt-4o-mini +error/);
  });

  it('rejects a query it cannot read and something that is not a run', () => {
    expect(() => expect({ trace: [] }).toHaveSpans({ kind: 'llm' } as never)).toThrow(
      /query\.kind must be one of "run", "model", "tool", "operation"/,
    );
    expect(() => expect({ trace: [] }).toHaveSpans({ names: 'x' } as never)).toThrow(
      /query has unknown key "names"/,
    );
    expect(() => expect({ toolCalls: [] }).toHaveSpans({})).toThrow(
      /must be a Run \(its trace\) or an array of OTLP spans/,
    );
  });
});

describe('toHaveStepCount', () => {
  it('counts model calls, and lists them when the bound fails', async () => {
    const run = await slowRun();
    expect(run).toHaveStepCount(2);
    expect(run).toHaveStepCount({ max: 3 });
    expect(run).not.toHaveStepCount({ min: 3 });
    const message = failureOf(() => expect(run).toHaveStepCount({ max: 1 }));
    expect(message).toContain('Expected: at most 1 step (model calls)');
    expect(message).toContain(
      'Received: 2 steps (model calls):\n  0 gpt-4o-mini → asks for lookup\n  1 gpt-4o-mini → “It shipped.”',
    );
    expect(() => expect(run).toHaveStepCount({ min: 1.5 })).toThrow(/expected min must be an integer ≥ 0/);
  });
});
