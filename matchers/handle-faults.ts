import type { MatcherContext, SyncExpectationResult } from 'expect';
import { matcherErrorMessage, printReceived, printWithType, RECEIVED_COLOR } from 'jest-matcher-utils';
import { matcherError } from './guards';

interface VariantLike {
  id: string;
  call: { operation: string; tool?: string; ordinal: number };
  fault: { code: string };
  verdict: 'handled' | 'unhandled' | (string & {});
  reasons: readonly string[];
}

/** What the matcher reads from a sweep (`understudy.sweep` result, or anything shaped like it). */
export interface SweepLike {
  variants: readonly VariantLike[];
  table?: string;
}

/**
 * A fault the agent may leave unhandled: `"issue_refund"` (every fault of that tool or
 * operation), `"issue_refund:TIMEOUT"`, `"orders/issueRefund:CARD_DECLINED"`, `"*:TIMEOUT"`, or
 * `{ call?, code? }`.
 */
export type FaultException = string | { call?: string; code?: string };

export interface HandleAllFaultsOptions {
  except?: readonly FaultException[];
}

export interface FaultSweepMatchers<R> {
  /** Every variant of the sweep was handled (but the ones `except` names); fails on a sweep that tried nothing. */
  toHandleAllFaults(options?: HandleAllFaultsOptions): R;
}

declare global {
  namespace jest {
    interface Matchers<R, T = {}> extends FaultSweepMatchers<R> {}
  }
}

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends FaultSweepMatchers<R> {}
}

function exceptionOf(entry: FaultException, hint: string): { call: string; code: string } {
  if (typeof entry === 'string' && entry !== '') {
    const colon = entry.lastIndexOf(':');
    return colon === -1
      ? { call: entry, code: '*' }
      : { call: entry.slice(0, colon) || '*', code: entry.slice(colon + 1) || '*' };
  }
  if (typeof entry === 'object' && entry !== null && (entry.call !== undefined || entry.code !== undefined))
    return { call: entry.call ?? '*', code: entry.code ?? '*' };
  throw matcherError(
    matcherErrorMessage(
      hint,
      `each ${RECEIVED_COLOR('except')} entry must be "tool", "tool:CODE", "*:CODE" or { call?, code? }`,
      printWithType('Entry', entry, printReceived),
    ),
  );
}

const covers = (e: { call: string; code: string }, v: VariantLike) =>
  (e.call === '*' || e.call === v.call.tool || e.call === v.call.operation) &&
  (e.code === '*' || e.code === v.fault.code);

function assertSweep(received: unknown, hint: string): asserts received is SweepLike {
  const variants = (received as Partial<SweepLike> | null)?.variants;
  if (typeof received !== 'object' || received === null || !Array.isArray(variants))
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${RECEIVED_COLOR('received')} value must be the result of understudy.sweep()`,
        printWithType('Received', received, printReceived),
      ),
    );
  // A sweep that tried nothing proves nothing either way: neither this matcher nor `.not` may pass.
  if (variants.length === 0)
    throw matcherError(
      `${hint}\n\nThe sweep tried no faults: its baseline made no call to a world operation or a tool fake ` +
        'inside a run (mockTool, a world package over HTTP, or a scenario tool fake), so no branch was tested.',
    );
}

/** Passes when every variant is handled but those `except` names; each `except` entry must name one. */
export function toHandleAllFaults(
  this: MatcherContext,
  received: unknown,
  options: HandleAllFaultsOptions = {},
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHandleAllFaults', undefined, 'options', {
    isNot: this.isNot,
    promise: this.promise,
  });
  assertSweep(received, hint);
  if (
    typeof options !== 'object' ||
    options === null ||
    (options.except !== undefined && !Array.isArray(options.except))
  )
    throw matcherError(
      matcherErrorMessage(
        hint,
        'options must be { except?: [...] }',
        printWithType('Options', options, printReceived),
      ),
    );
  const except = (options.except ?? []).map((e) => exceptionOf(e, hint));
  const variants = received.variants;
  // An exception that covers no variant is a typo or a fault that went away: it must not pass silently.
  const stale = (options.except ?? []).filter((_, i) => !variants.some((v) => covers(except[i], v)));
  if (stale.length > 0)
    throw matcherError(
      `${hint}\n\n${RECEIVED_COLOR('except')} names no fault of the sweep: ${stale.map((s) => JSON.stringify(s)).join(', ')}\n` +
        `The sweep's faults: ${variants.map((v) => `${v.call.tool ?? v.call.operation}:${v.fault.code}`).join(', ')}`,
    );
  const excused = (v: VariantLike) => except.some((e) => covers(e, v));
  const unhandled = variants.filter((v) => v.verdict !== 'handled' && !excused(v));
  const pass = unhandled.length === 0;
  const table = received.table ? `\n\n${received.table}` : '';
  return {
    pass,
    message: () =>
      pass
        ? `${hint}\n\nExpected some fault to go unhandled, but the agent handled all ${variants.length - variants.filter(excused).length} (not counting the exceptions).${table}`
        : `${hint}\n\nThe agent does not handle ${unhandled.length} of ${variants.length} faults:\n` +
          unhandled.map((v) => `  ${RECEIVED_COLOR('✗')} ${v.id}: ${v.reasons.join('; ')}`).join('\n') +
          `${table}\n\nEach variant's runs are in the test's trace, labelled "sweep: <fault>".`,
  };
}
