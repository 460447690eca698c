import { describe, expect, it } from '@jest/globals';
import { matchers } from '../../../matchers';
import { suggestName, suggestValue } from '../../../src/file-format/suggest';
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

describe('did you mean', () => {
  it('never suggests the name that was asked for', () => {
    expect(suggestName('get_user', ['get_user', 'set_user'])).toBe('set_user');
    expect(suggestName('get_user', ['get_user'])).toBeUndefined();
    expect(suggestName('content', ['content'])).toBeUndefined();
    expect(suggestValue('stop', ['stop'])).toBeUndefined();
    expect(suggestValue('Stop', ['stop'])).toBe('stop');
  });

  it('says a declared tool the model never asked for was offered, instead of suggesting itself or a neighbour', () => {
    const run = runWith(['lookup_order'], ['lookup_order', 'get_user', 'set_user']);
    const message = failureOf(() => expect(run).toHaveCalledTool('get_user'));
    expect(message).toContain(
      'No call is named "get_user": the run offered it to the model, which never asked for it.',
    );
    expect(message).not.toContain('did you mean');
    const sequence = failureOf(() => expect(run).toHaveCalledToolSequence(['lookup_order', 'get_user']));
    expect(sequence).not.toContain('did you mean');
  });
});

describe('a forbidden name that is no tool of the run but is close to one', () => {
  const run = runWith(['lookup_order', 'delete_account'], ['lookup_order', 'delete_account']);
  const typo =
    /"delete_acount" is no tool of this run: no request offered it, no call used it and the world declares no such tool, so it forbids nothing\. It is close to "delete_account" \(offered to the model, requested and run in this run\): a typo\?/;

  it('fails toNeverCallTools as a probable typo, and .not cannot turn that into a pass', () => {
    expect(() => expect(run).toNeverCallTools(['delete_acount'])).toThrow(typo);
    expect(() => expect(run).not.toNeverCallTools(['delete_acount'])).toThrow(typo);
    expect(() => expect(run).toNeverCallTools([{ name: 'delete_acount', args: { id: 1 } }])).toThrow(
      /forbidden\[0\] "delete_acount" is no tool of this run/,
    );
    // The same with the agent never calling it: the typo is in the test, not in the run.
    expect(() => expect(runWith([], ['delete_account'])).toNeverCallTools(['delete_acount'])).toThrow(
      /It is close to "delete_account" \(offered to the model\): a typo\?/,
    );
  });

  it('fails every negated assertion on a name the same way', () => {
    expect(() => expect(run).not.toHaveCalledTool('delete_acount')).toThrow(typo);
    expect(() => expect(run).not.toHaveRequestedTool('Delete_Account')).toThrow(/a typo\?/);
    expect(() =>
      expect(run).not.toHaveCalledToolSequence(['delete_acount', 'lookup_order'], { mode: 'ordered' }),
    ).toThrow(/expected\[0\] "delete_acount" is no tool of this run/);
    expect(() => expect(run).not.toHaveRequestedToolSequence(['lookup_ordr'])).toThrow(/a typo\?/);
  });

  it('leaves names the run knows, and names close to nothing, alone', () => {
    expect(run).not.toNeverCallTools(['delete_account']);
    expect(run).toNeverCallTools(['transfer_funds']);
    expect(runWith(['lookup_order'], ['lookup_order', 'delete_account'])).toNeverCallTools([
      'delete_account',
    ]);
    expect(run).not.toHaveCalledTool('send_wire');
    // Without the tools the run offered (a hand-built run-like object), nothing says what is a typo.
    expect(runOf(['delete_account'])).toNeverCallTools(['delete_acount']);
  });
});
