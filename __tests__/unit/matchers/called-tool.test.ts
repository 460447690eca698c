import { describe, expect, it } from '@jest/globals';
import { matchers } from '../../../matchers';
import { failureOf, runOf } from './helpers';

expect.extend(matchers);

const run = runOf([
  ['search', { q: 'open issues' }],
  ['applyFilter', { status: 'closed', labels: ['bug'], page: 1 }],
  ['applyFilter', { status: 'open', labels: ['ui'], page: 2 }],
]);

describe('toHaveCalledTool', () => {
  it('passes when some call has the name', () => {
    expect(run).toHaveCalledTool('applyFilter');
    expect(run).not.toHaveCalledTool('deleteIssue');
  });

  it('compares args as a deep subset, against every call of that name', () => {
    expect(run).toHaveCalledTool('applyFilter', { status: 'open' });
    expect(run).toHaveCalledTool('applyFilter', { status: 'closed', labels: ['bug'] });
    expect(run).not.toHaveCalledTool('applyFilter', { status: 'open', labels: ['bug'] });
    expect(run).not.toHaveCalledTool('search', { status: 'open' });
  });

  it('accepts asymmetric matchers in args', () => {
    expect(run).toHaveCalledTool('search', { q: expect.stringContaining('issues') });
    expect(run).toHaveCalledTool('applyFilter', expect.objectContaining({ page: expect.any(Number) }));
    expect(run).not.toHaveCalledTool('applyFilter', { page: expect.any(String) });
  });

  it('lists the calls made and diffs the closest call of that name', () => {
    const message = failureOf(() => expect(run).toHaveCalledTool('applyFilter', { status: 'open', page: 1 }));
    expect(message).toContain('expect(received).toHaveCalledTool(name, args)');
    expect(message).toContain(
      'Expected: a call to "applyFilter" with arguments matching {"page": 1, "status": "open"}',
    );
    expect(message).toContain('Received 3 calls:\n  0 search {"q": "open issues"}\n  1 applyFilter');
    // Both calls share one key with the expectation; the first wins the tie.
    expect(message).toContain('Closest call to "applyFilter" (step 1):');
    expect(message).toMatch(/- {3}"status": "open",\n\+ {3}"status": "closed",/);
    // Keys the expectation does not name stay out of the diff.
    expect(message).not.toMatch(/^[-+ ] +"labels"/m);
  });

  it('picks the call that agrees on the most keys', () => {
    const message = failureOf(() =>
      expect(run).toHaveCalledTool('applyFilter', { status: 'open', labels: ['ui'], page: 3 }),
    );
    expect(message).toContain('Closest call to "applyFilter" (step 2):');
  });

  it('says when no call has the name, or the run made no calls', () => {
    expect(failureOf(() => expect(run).toHaveCalledTool('deleteIssue'))).toContain(
      'No call is named "deleteIssue"; the run called "search", "applyFilter".',
    );
    expect(failureOf(() => expect(runOf([])).toHaveCalledTool('search'))).toContain(
      'Received: the run made no tool calls',
    );
  });

  it('.not lists the matching calls', () => {
    expect(() => expect(run).not.toHaveCalledTool('applyFilter')).toThrow(
      /Expected: not a call to "applyFilter"\nReceived: 2 such calls\n {2}1 applyFilter .*\n {2}2 applyFilter/,
    );
  });

  it('rejects a name that is not a string and args that are not an object', () => {
    expect(() => expect(run).toHaveCalledTool(42 as never)).toThrow(
      /name must be a non-empty tool name string/,
    );
    expect(() => expect(run).toHaveCalledTool('search', 'q' as never)).toThrow(
      /args must be an object or an asymmetric matcher/,
    );
  });
});
