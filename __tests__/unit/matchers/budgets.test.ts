import { describe, expect, it } from '@jest/globals';
import { registerMatchers } from 'jest-understudy/matchers';
import { failureOf, runOf } from './helpers';

registerMatchers(expect);

const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });
const call = (model: string, u?: ReturnType<typeof usage>, more: Record<string, unknown> = {}) => ({
  provider: 'openai',
  conversation: { model },
  ...(u && { response: { model: `${model}-2026-01-01`, usage: u } }),
  ...more,
});
const runWith = (calls: unknown[], more: Record<string, unknown> = {}) => ({
  ...runOf([]),
  modelCalls: calls,
  durationMs: 5,
  ...more,
});

describe('toHaveCostBelow', () => {
  // gpt-4o: $2.50 in, $10 out per million tokens.
  const run = runWith([call('gpt-4o', usage(100_000, 1_000)), call('gpt-4o', usage(100_000, 1_000))]);

  it('sums the usage of the run’s calls times their prices', () => {
    expect(run).toHaveCostBelow(0.5201);
    expect(run).not.toHaveCostBelow(0.52);
    const message = failureOf(() => expect(run).toHaveCostBelow(0.5));
    expect(message).toContain('Expected: a cost below $0.5000');
    expect(message).toContain('Received: $0.5200 over 2 model calls');
    expect(message).toContain('0 openai gpt-4o: 100000 in, 1000 out → $0.2600');
    expect(failureOf(() => expect(run).not.toHaveCostBelow(1))).toContain(
      'Expected: a cost not below $1.0000',
    );
  });

  it('fails on a model with no price, whichever way it is asserted, naming it and the option', () => {
    const unpriced = runWith([call('gpt-4o', usage(1, 1)), call('my-finetune', usage(1, 1))]);
    for (const assertion of [
      () => expect(unpriced).toHaveCostBelow(1000),
      () => expect(unpriced).not.toHaveCostBelow(0),
    ]) {
      const message = failureOf(assertion);
      expect(message).toContain('model call 1 used openai model "my-finetune", which has no price');
      expect(message).toContain('{ prices: { openai: { "my-finetune": { input, output } } } }');
    }
  });

  it('counts a call with no usage (refused, dropped) as nothing billed, and refuses a bad budget', () => {
    expect(runWith([call('no-price-needed')])).toHaveCostBelow(0.000001);
    expect(failureOf(() => expect(run).toHaveCostBelow(-1))).toContain('must be a finite number ≥ 0');
    expect(failureOf(() => expect({}).toHaveCostBelow(1))).toContain('must be a Run');
  });
});

describe('toHaveLatencyBelow', () => {
  it('in replay, sums the simulated time of the model calls, not the wall time', () => {
    const replay = runWith([call('gpt-4o', usage(1, 1), { simulatedMs: 300 }), call('gpt-4o', usage(1, 1))], {
      durationMs: 2,
    });
    expect(replay).toHaveLatencyBelow(301);
    expect(replay).not.toHaveLatencyBelow(300);
    expect(failureOf(() => expect(replay).toHaveLatencyBelow(100))).toContain(
      'Received: 300 ms, replay: the simulated time of its 2 model calls (300 ms + 0 ms)',
    );
  });

  it('live, takes the wall time of the run', () => {
    const live = runWith([call('gpt-4o', usage(1, 1), { recorded: true, simulatedMs: 0 })], {
      durationMs: 1234,
    });
    expect(live).toHaveLatencyBelow(1235);
    expect(failureOf(() => expect(live).toHaveLatencyBelow(1000))).toContain(
      'Received: 1234 ms, wall time (a real provider answered)',
    );
  });
});
