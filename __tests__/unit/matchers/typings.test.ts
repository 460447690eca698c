// Type-level checks (run by `tsc`) that both the global `expect` and the one from
// @jest/globals know the matchers, plus a smoke test through the global `expect`.
import { expect as importedExpect } from '@jest/globals';
import { matchers, registerMatchers } from 'jest-understudy/matchers';
import { runOf } from './helpers';

registerMatchers(expect);
registerMatchers(importedExpect);

const run = runOf(['get_deploy', ['rollback', { ns: 'canary' }]], { finalMessage: 'Rolled back.' });

it('works through the global expect', () => {
  expect(run).toHaveCalledToolSequence(['get_deploy', { name: 'rollback', args: { ns: 'canary' } }]);
  expect(run).toHaveCalledTool('rollback', { ns: expect.any(String) });
  expect(run).toHaveFinalMessage(expect.stringContaining('Rolled'));
  expect(run).not.toHaveTerminalState('failed');
});

// Never called: only type-checked.
function typeChecks(): void {
  for (const e of [expect, importedExpect] as const) {
    e(run).toHaveCalledToolSequence(['a', { name: 'b', args: { x: importedExpect.any(Number) } }], {
      mode: 'ordered',
      args: 'exact',
    });
    e(run).not.toHaveCalledTool('a', importedExpect.objectContaining({ x: 1 }));
    e(run).toHaveFinalMessage(/done/);
    e(run).toHaveTerminalState('timed_out');
    e(run).toHaveCalledTool('a', { x: 1 }, { outcome: 'error', code: 'BUSY', times: { max: 2 } });
    e(run).toHaveCalledToolSequence([{ name: 'a', outcome: 'ok' }], {
      argsBy: { a: 'ignore', b: ['id'], c: (x, y) => x.id === y.id },
    });
    e(run).toOnlyCallTools(['a', { name: 'b', args: { x: 1 } }]);
    e(run).not.toNeverCallTools(['c']);
    e(run).toHaveStepCount({ min: 1, max: 4 });
    e(run).toHaveSpans({ kind: 'tool', status: 'error', count: 0, durationMs: { max: 100 } });
  }
  // @ts-expect-error unknown outcome
  importedExpect(run).toHaveCalledTool('a', undefined, { outcome: 'failed' });
  // @ts-expect-error unknown span kind
  expect(run).toHaveSpans({ kind: 'llm' });
  // @ts-expect-error unknown mode
  importedExpect(run).toHaveCalledToolSequence(['a'], { mode: 'sorted' });
  // @ts-expect-error unknown args mode
  expect(run).toHaveCalledToolSequence(['a'], { args: 'loose' });
  // @ts-expect-error a step needs a name
  importedExpect(run).toHaveCalledToolSequence([{ args: {} }]);
  importedExpect.extend(matchers);
  expect.extend(matchers);
}
void typeChecks;
