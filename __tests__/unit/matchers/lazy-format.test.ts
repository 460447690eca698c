/**
 * A passing assertion formats no message. Under Vitest the matchers print with their own copy of
 * jest-matcher-utils (Vitest's `this.utils` has no `matcherErrorMessage`), and loading it with
 * jest-diff, pretty-format and chalk costs a Vitest worker (a process per test file) ~15 ms:
 * only a message someone reads may load it.
 */
import { describe, expect, it, jest } from '@jest/globals';
import type { MatcherContext } from 'expect';
import { runOf } from './helpers';

const mockLoads = { count: 0 };
jest.mock('jest-matcher-utils', () => {
  mockLoads.count++;
  return jest.requireActual('jest-matcher-utils');
});

type Matcher = (this: unknown, received: unknown, ...args: unknown[]) => { pass: boolean; message(): string };

const run = runOf(['lookup_order', ['refund_order', { id: 'A1001' }]], {
  finalMessage: 'Order A1001 was refunded.',
});

/** Each matcher with arguments it passes with, and with arguments it fails with. */
const cases: Array<[name: string, passing: unknown[], failing: unknown[]]> = [
  ['toHaveCalledToolSequence', [['lookup_order', 'refund_order']], [['refund_order']]],
  ['toHaveRequestedToolSequence', [['lookup_order', { name: 'refund_order', args: { id: 'A1001' } }]], [[]]],
  ['toHaveCalledTool', ['refund_order', { id: 'A1001' }], ['refund_order', { id: 'B2' }]],
  ['toHaveRequestedTool', ['lookup_order'], ['cancel_order']],
  ['toHaveFinalMessage', ['refunded'], ['declined']],
  ['toHaveFinalMessage', [/A\d+ was refunded/], [/declined/]],
  ['toOnlyCallTools', [['lookup_order', 'refund_order']], [['lookup_order']]],
  ['toNeverCallTools', [['cancel_order']], [['refund_order']]],
  ['toHaveTerminalState', ['succeeded'], ['failed']],
];

/** A matcher context as Vitest's: its utils lack `matcherErrorMessage`, so the matchers fall back to their own. */
function vitestLikeContext(jestContext: MatcherContext, isNot: boolean): unknown {
  const { matcherErrorMessage: _, ...utils } = jestContext.utils;
  return { ...jestContext, equals: jestContext.equals, isNot, utils };
}

describe('a passing assertion', () => {
  it.each(cases)('%s formats nothing until its message is read', (name, passing, failing) => {
    jest.isolateModules(() => {
      mockLoads.count = 0;
      // The matchers as both adapters register them: each loads its own module on first use.
      const { lazyMatchers: matchers } = require('../../../matchers/lazy') as {
        lazyMatchers: Record<string, Matcher>;
      };
      let context: unknown;
      expect.extend({
        captureContext(this: MatcherContext) {
          context = this;
          return { pass: true, message: () => '' };
        },
      });
      (expect(0) as unknown as { captureContext(): void }).captureContext();
      const matcher = matchers[name];
      const passed = matcher.call(vitestLikeContext(context as MatcherContext, false), run, ...passing);
      expect(passed.pass).toBe(true);
      const negated = matcher.call(vitestLikeContext(context as MatcherContext, true), run, ...failing);
      expect(negated.pass).toBe(false);
      expect(mockLoads.count).toBe(0);
      // The messages are still whole when read.
      expect(passed.message()).toContain(`.${name}(`);
      const failed = matcher.call(vitestLikeContext(context as MatcherContext, false), run, ...failing);
      expect(failed.pass).toBe(false);
      expect(failed.message().length).toBeGreaterThan(20);
      expect(mockLoads.count).toBe(1);
    });
  });
});
