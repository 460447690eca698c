import { describe, expect, it } from '@jest/globals';
import { matchers } from '../../matchers';
import { failureOf, runOf } from './helpers';

expect.extend(matchers);

/** A run whose model requests declared `declared` and which called `called`. */
const runWith = (called: string[], declared: string[] = []) =>
  runOf(called, { modelCalls: [{ conversation: { tools: declared.map((name) => ({ name })) } }] });

describe('an expected tool name no call has', () => {
  const run = runWith(['lookup_order', 'page_oncall'], ['lookup_order', 'page_oncall', 'issue_refund']);

  it('toHaveCalledTool: did you mean the called tool it is a typo of', () => {
    expect(failureOf(() => expect(run).toHaveCalledTool('lookup_ordr'))).toContain(
      'No call is named "lookup_ordr": did you mean "lookup_order" (called)?',
    );
    // Case and separators only: still the same tool.
    expect(failureOf(() => expect(run).toHaveCalledTool('lookupOrder'))).toContain(
      'did you mean "lookup_order" (called)?',
    );
  });

  it('toHaveCalledTool: did you mean a tool the agent declared but never called', () => {
    expect(failureOf(() => expect(run).toHaveCalledTool('issue_refnd'))).toContain(
      'No call is named "issue_refnd": did you mean "issue_refund" (declared to the model, never called)?',
    );
    expect(failureOf(() => expect(runWith([], ['issue_refund'])).toHaveCalledTool('issue_refnd'))).toContain(
      'did you mean "issue_refund" (declared to the model, never called)?',
    );
  });

  it('toHaveCalledTool: with nothing close, lists the tools that were called', () => {
    const message = failureOf(() => expect(run).toHaveCalledTool('send_email'));
    expect(message).toContain('No call is named "send_email"; the run called "lookup_order", "page_oncall".');
    expect(message).not.toContain('did you mean');
  });

  it('no hint for a name that was called (the arguments or the count failed instead)', () => {
    const message = failureOf(() => expect(run).toHaveCalledTool('lookup_order', undefined, { times: 2 }));
    expect(message).not.toContain('No call is named');
  });

  it('toHaveCalledToolSequence: a missing step that is a typo gets the hint, in every mode', () => {
    for (const mode of ['exact', 'ordered', 'unordered', 'contains', 'within'] as const) {
      const message = failureOf(() =>
        expect(run).toHaveCalledToolSequence(['lookup_ordr', 'page_oncall'], { mode }),
      );
      expect(message).toContain('No call is named "lookup_ordr": did you mean "lookup_order" (called)?');
    }
    // A step that is simply missing gets no guess.
    const message = failureOf(() =>
      expect(run).toHaveCalledToolSequence(['lookup_order', 'page_oncall', 'send_email']),
    );
    expect(message).not.toContain('did you mean');
  });

  it('toOnlyCallTools: an allowed name nothing called points at the call it is a typo of', () => {
    const message = failureOf(() => expect(run).toOnlyCallTools(['lookup_order', 'page_oncal']));
    expect(message).toContain('first call outside the allowed tools at step 1: "page_oncall"');
    expect(message).toContain('No call is named "page_oncal": did you mean "page_oncall" (called)?');
  });
});
