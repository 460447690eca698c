import { describe, expect, it } from '@jest/globals';
import { matchers } from '../../../matchers';
import { failureOf, runOf } from './helpers';

expect.extend(matchers);

const answered = runOf([], { finalMessage: 'Found 2 open issues.' });

describe('toHaveFinalMessage', () => {
  it('a string checks containment', () => {
    expect(answered).toHaveFinalMessage('Found 2');
    expect(answered).not.toHaveFinalMessage('Found 3');
  });

  it('a RegExp must match, and a /g pattern gives the same answer every time', () => {
    expect(answered).toHaveFinalMessage(/found \d+/i);
    const global = /Found/g;
    expect(answered).toHaveFinalMessage(global);
    expect(answered).toHaveFinalMessage(global);
    expect(answered).not.toHaveFinalMessage(/^open/);
  });

  it('an asymmetric matcher must match', () => {
    expect(answered).toHaveFinalMessage(expect.stringMatching(/issues\.$/));
    expect(answered).not.toHaveFinalMessage(expect.stringContaining('closed'));
  });

  it('prints the actual final message on failure', () => {
    expect(() => expect(answered).toHaveFinalMessage('Found 3')).toThrow(
      /Expected final message: containing "Found 3"\nReceived final message: "Found 2 open issues\."/,
    );
    expect(failureOf(() => expect(answered).not.toHaveFinalMessage(/Found/))).toContain(
      'Expected final message: not matching /Found/',
    );
  });

  it('says when the run ended without a final message', () => {
    const silent = runOf([], { terminalState: 'errored' });
    expect(silent).not.toHaveFinalMessage('');
    expect(failureOf(() => expect(silent).toHaveFinalMessage('Found'))).toContain(
      'Received final message: the run ended without a final message (terminal state: "errored")',
    );
  });

  it('rejects other kinds of expected values', () => {
    expect(() => expect(answered).toHaveFinalMessage(2 as never)).toThrow(
      /expected value must be a string, a RegExp or an asymmetric matcher/,
    );
  });
});

describe('toHaveTerminalState', () => {
  it('compares the terminal state', () => {
    expect(runOf([])).toHaveTerminalState('succeeded');
    expect(runOf([], { terminalState: 'timed_out' })).not.toHaveTerminalState('succeeded');
    expect(runOf([], { terminalState: 'timed_out' })).toHaveTerminalState(expect.stringMatching(/^timed/));
  });

  it('shows the received state and the run error', () => {
    const failed = runOf([], { terminalState: 'errored', error: new Error('model returned 500') });
    const message = failureOf(() => expect(failed).toHaveTerminalState('succeeded'));
    expect(message).toContain('Expected terminal state: "succeeded"\nReceived terminal state: "errored"');
    expect(message).toContain(
      "The run ended 'errored': the agent threw Error: model returned 500\n      ↳ at ",
    );
    expect(failureOf(() => expect(runOf([])).toHaveTerminalState('failed'))).not.toContain('The run ended');
  });

  it('.not says which state it should not have been', () => {
    expect(() => expect(runOf([])).not.toHaveTerminalState('succeeded')).toThrow(
      /Expected terminal state: not "succeeded"/,
    );
  });

  it('rejects a state that is not a string', () => {
    expect(() => expect(runOf([])).toHaveTerminalState(1 as never)).toThrow(
      /state must be a terminal state string/,
    );
  });
});
