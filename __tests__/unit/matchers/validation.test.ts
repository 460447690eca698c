import { describe, expect, it } from '@jest/globals';
import { matchers, registerMatchers } from '../../../matchers';
import { runOf } from './helpers';

expect.extend(matchers);

const run = runOf(['a']);

describe('bad options', () => {
  it('names an unknown mode and lists the allowed ones', () => {
    expect(() => expect(run).toHaveCalledToolSequence(['a'], { mode: 'sorted' } as never)).toThrow(
      /options\.mode must be one of "exact", "ordered", "unordered", "contains", "within", "subset", "superset"[\s\S]*"sorted"/,
    );
  });

  it('names an unknown args mode and lists the allowed ones', () => {
    expect(() => expect(run).toHaveCalledToolSequence(['a'], { args: 'loose' } as never)).toThrow(
      /options\.args must be one of "contains", "exact", "ignore", "within", "subset", "superset"[\s\S]*"loose"/,
    );
  });

  it('rejects unknown option keys and options that are not an object', () => {
    expect(() => expect(run).toHaveCalledToolSequence(['a'], { mod: 'ordered' } as never)).toThrow(
      /options has unknown key "mod"; allowed keys: "mode", "args", "argsBy"/,
    );
    expect(() => expect(run).toHaveCalledToolSequence(['a'], 'ordered' as never)).toThrow(
      /options must be an object like \{ mode, args, argsBy \}/,
    );
  });

  it('requires expected to be an array', () => {
    expect(() => expect(run).toHaveCalledToolSequence('a' as never)).toThrow(
      /expected value must be an array of tool names or \{ name, args \} objects/,
    );
  });

  it('requires every step to have a name', () => {
    expect(() => expect(run).toHaveCalledToolSequence(['a', { args: {} }] as never)).toThrow(
      /expected\[1\] must be a tool name string or an object with a string name/,
    );
    expect(() => expect(run).toHaveCalledToolSequence([''])).toThrow(
      /expected\[0\] must be a tool name string/,
    );
  });

  it('rejects unknown step keys instead of silently skipping the args check', () => {
    expect(() => expect(run).toHaveCalledToolSequence([{ name: 'a', arguments: {} }] as never)).toThrow(
      /expected\[0\] has unknown key "arguments"; allowed keys: "name", "args"/,
    );
    expect(() => expect(run).toHaveCalledToolSequence([{ name: 'a', args: 'x' }] as never)).toThrow(
      /expected\[0\]\.args must be an object or an asymmetric matcher/,
    );
  });

  it('throws even under .not: a usage error is never a pass', () => {
    expect(() => expect(run).not.toHaveCalledToolSequence(['a'], { mode: 'sorted' } as never)).toThrow(
      /options\.mode must be one of/,
    );
  });
});

describe('a received value that is not a run', () => {
  const notRun =
    /received value must be a Run from understudy\.run \/ createAgentHarness or an object with a toolCalls array/;

  it.each([
    ['a number', 5],
    ['null', null],
    ['undefined', undefined],
    ['an object without toolCalls', { finalMessage: 'hi' }],
    ['a promise', Promise.resolve(run)],
  ])('rejects %s in every matcher', (_, value) => {
    expect(() => expect(value).toHaveCalledToolSequence(['a'])).toThrow(notRun);
    expect(() => expect(value).not.toHaveCalledTool('a')).toThrow(notRun);
    expect(() => expect(value).toHaveFinalMessage('a')).toThrow(notRun);
    expect(() => expect(value).toHaveTerminalState('succeeded')).toThrow(notRun);
  });

  it('says what it received', () => {
    expect(() => expect(42).toHaveCalledTool('a')).toThrow(
      /Received has type: {2}number\nReceived has value: 42/,
    );
  });

  it('rejects tool calls without a name', () => {
    expect(() => expect({ toolCalls: [{ arguments: {} }] }).toHaveCalledTool('a')).toThrow(
      /received\.toolCalls must hold objects with a string name[\s\S]*toolCalls\[0\]/,
    );
  });
});

describe('registerMatchers', () => {
  it('extends the given expect with every matcher', () => {
    const extended: string[] = [];
    registerMatchers({ extend: (m) => extended.push(...Object.keys(m)) });
    expect(extended).toEqual(Object.keys(matchers));
    expect(extended).toEqual([
      'toHaveCalledToolSequence',
      'toHaveRequestedToolSequence',
      'toHaveCalledTool',
      'toHaveRequestedTool',
      'toHaveFinalMessage',
      'toHaveTerminalState',
      'toHavePassedDrill',
      'toMatchPromptSnapshot',
      'toHavePromptTokensBelow',
      'toOnlyCallTools',
      'toNeverCallTools',
      'toHaveStepCount',
      'toHaveSpans',
      'toHaveChangedFiles',
      'toHandleAllFaults',
      'toSatisfyJudge',
      'toHaveCostBelow',
      'toHaveLatencyBelow',
    ]);
  });
});
