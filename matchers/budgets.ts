import type { MatcherContext, SyncExpectationResult } from 'expect';
import type { NeutralUsage, ProviderId } from '../src/conversation';
import { markError } from '../src/errors';
import { costOf } from '../src/pricing';
import { getContext, hasEnvironment } from '../src/sandbox/runtime';
import { assertRunLike, matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printExpected,
  printWithType,
  RECEIVED_COLOR,
} from './matcher-utils';

/** What the budgets read of a model call (a `ModelCall` of the run). */
interface CallLike {
  provider?: ProviderId;
  conversation?: { model?: string };
  response?: { model?: string; usage?: Partial<NeutralUsage> };
  whole?: { usage?: Partial<NeutralUsage> };
  recorded?: boolean;
  simulatedMs?: number;
  durationMs?: number;
}

function limitOf(hint: string, name: string, value: unknown, unit: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  throw matcherError(
    matcherErrorMessage(
      hint,
      `${EXPECTED_COLOR(name)} must be a finite number ≥ 0 (${unit})`,
      printWithType(name, value, printExpected),
    ),
  );
}

const callsOf = (received: { modelCalls?: ReadonlyArray<unknown> }) =>
  (received.modelCalls ?? []) as ReadonlyArray<CallLike>;

const usd = (n: number) => `$${n < 0.01 ? n.toPrecision(3) : n.toFixed(4)}`;

/**
 * The run's model calls cost less than `limit` USD: each call's usage times its model's price
 * (the built-in table and the `prices` option). A model with no price fails, under `.not` too.
 */
export function toHaveCostBelow(
  this: MatcherContext,
  received: unknown,
  limit: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveCostBelow', undefined, 'usd', {
    isNot: this.isNot,
    promise: this.promise,
  });
  assertRunLike(received, hint);
  const max = limitOf(hint, 'usd', limit, 'US dollars');
  const prices = hasEnvironment() ? getContext().options.prices : undefined;
  const lines: string[] = [];
  let total = 0;
  callsOf(received).forEach((call, step) => {
    const usage = call.response?.usage ?? call.whole?.usage;
    const model = call.conversation?.model ?? call.response?.model ?? '';
    // A call the provider refused or dropped carries no usage: nothing was billed for it.
    if (!usage || call.provider === undefined) {
      lines.push(`  ${step} ${model || 'a call'}: no usage (not billed)`);
      return;
    }
    const whole = { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0, ...usage };
    const cost =
      costOf(whole, call.provider, model, prices) ??
      (call.response?.model ? costOf(whole, call.provider, call.response.model, prices) : undefined);
    if (cost === undefined)
      throw markError(
        new Error(
          `${hint}\n\nThe run's model call ${step} used ${call.provider} model ${JSON.stringify(model)}, which has no price, ` +
            'so its cost is unknown (a budget is never met by a model nobody priced). Add its price in USD per million tokens ' +
            `to the \`prices\` option of jest-understudy: { prices: { ${call.provider}: { ${JSON.stringify(model)}: { input, output } } } }.`,
        ),
        'PRICE_UNKNOWN',
      );
    total += cost;
    lines.push(
      `  ${step} ${call.provider} ${model}: ${whole.inputTokens} in, ${whole.outputTokens} out → ${usd(cost)}`,
    );
  });
  const pass = total < max;
  return {
    pass,
    message: () =>
      `${hint}\n\nExpected: a cost ${this.isNot ? 'not ' : ''}below ${EXPECTED_COLOR(usd(max))}\n` +
      `Received: ${RECEIVED_COLOR(usd(total))} over ${lines.length} model ${lines.length === 1 ? 'call' : 'calls'}` +
      (lines.length > 0 ? `:\n${lines.join('\n')}` : ''),
  };
}

/**
 * The run took less than `limit` ms: wall time when a real provider answered (live and record
 * modes); in replay, the time its model calls took on the injectable clock (fixture latencies
 * and stream pacing, one after another), whatever `timeScale` or fake timers made of it.
 */
export function toHaveLatencyBelow(
  this: MatcherContext,
  received: unknown,
  limit: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveLatencyBelow', undefined, 'ms', {
    isNot: this.isNot,
    promise: this.promise,
  });
  assertRunLike(received, hint);
  const max = limitOf(hint, 'ms', limit, 'milliseconds');
  const calls = callsOf(received);
  const live = calls.some((c) => c.recorded);
  const wall = (received as { durationMs?: unknown }).durationMs;
  if (live && typeof wall !== 'number')
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${RECEIVED_COLOR('received')} has no durationMs`,
        printWithType('Received', received, printExpected),
      ),
    );
  const parts = calls.map((c) => c.simulatedMs ?? 0);
  const latency = live ? (wall as number) : parts.reduce((a, b) => a + b, 0);
  const how = live
    ? 'wall time (a real provider answered)'
    : `replay: the simulated time of its ${calls.length} model ${calls.length === 1 ? 'call' : 'calls'}` +
      (calls.length > 0 ? ` (${parts.map((p) => `${Math.round(p)} ms`).join(' + ')})` : '');
  return {
    pass: latency < max,
    message: () =>
      `${hint}\n\nExpected: a latency ${this.isNot ? 'not ' : ''}below ${EXPECTED_COLOR(`${max} ms`)}\n` +
      `Received: ${RECEIVED_COLOR(`${Math.round(latency)} ms`)}, ${how}`,
  };
}
