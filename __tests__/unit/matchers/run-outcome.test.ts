/**
 * A matcher that fails on a run whose agent threw or timed out shows the terminal state and the
 * agent's error (name, message, top frames), whatever was thrown; building that message is not
 * the test looking at the run. End to end: __tests__/installed/truthful.test.ts.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { type Run, understudy } from 'jest-understudy';
import { matchers } from '../../../matchers';
import { OutcomeWatch } from '../../../src/run/outcomes';
import { plainError } from '../../../src/trace/plain';
import { failureOf, runOf } from './helpers';

expect.extend(matchers);

function crashAgent(): never {
  throw new TypeError("Cannot read properties of undefined (reading 'orders')");
}

const crashed = runOf([['lookup', { id: 1 }]], {
  terminalState: 'errored',
  error: (() => {
    try {
      crashAgent();
    } catch (error) {
      return error;
    }
  })(),
});

/** What `ws` rejects a failed connection with: an event whose target reaches sockets and streams. */
class ErrorEvent {
  readonly type = 'error';
  readonly target: Record<string, unknown>;
  constructor(
    readonly message: string,
    readonly error: Error,
  ) {
    const socket: Record<string, unknown> = {};
    socket.self = socket;
    Object.defineProperty(socket, 'readableState', {
      enumerable: true,
      get() {
        throw new TypeError("Cannot read properties of null (reading 'reading')");
      },
    });
    this.target = { _socket: socket, _req: { socket } };
  }
}

const THROWN: Array<[string, unknown, RegExp]> = [
  [
    'a ws ErrorEvent',
    new ErrorEvent('Unexpected server response: 404', new Error('Unexpected server response: 404')),
    /the agent threw ErrorEvent: Unexpected server response: 404\n {6}↳ at /,
  ],
  ['null', null, /the agent threw null$/m],
  ['undefined', undefined, /the agent threw undefined$/m],
  ['a string', 'quota exceeded', /the agent threw string: quota exceeded$/m],
  ['a number', 42, /the agent threw number: 42$/m],
  ['a symbol', Symbol('gone'), /the agent threw symbol: Symbol\(gone\)$/m],
  [
    'a plain object',
    { status: 503, body: { retry: true } },
    /Object: \{ status: 503, body: \{ retry: true \} \}/,
  ],
  [
    'a revoked proxy',
    (() => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    })(),
    /object: \[a value that cannot be read\]/,
  ],
];

describe('a failing matcher on a run whose agent threw', () => {
  it('shows the terminal state and the error with its top frames', () => {
    const message = failureOf(() => expect(crashed).toHaveFinalMessage('refunded'));
    expect(message).toContain(
      "The run ended 'errored': the agent threw TypeError: Cannot read properties of undefined (reading 'orders')\n      ↳ at crashAgent (",
    );
    expect(message.split('\n').filter((line) => /^ {6}↳ at /.test(line)).length).toBeLessThanOrEqual(5);
  });

  it.each([
    ['toHaveCalledTool', () => expect(crashed).toHaveCalledTool('refund')],
    ['toHaveRequestedTool', () => expect(crashed).toHaveRequestedTool('refund')],
    ['toHaveCalledToolSequence', () => expect(crashed).toHaveCalledToolSequence(['refund'])],
    ['toHaveRequestedToolSequence', () => expect(crashed).toHaveRequestedToolSequence(['refund'])],
    ['.not.toHaveCalledTool', () => expect(crashed).not.toHaveCalledTool('lookup')],
    ['toOnlyCallTools', () => expect(crashed).toOnlyCallTools(['refund'])],
    ['toNeverCallTools', () => expect(crashed).toNeverCallTools(['lookup'])],
    ['toHaveTerminalState', () => expect(crashed).toHaveTerminalState('succeeded')],
    [
      '.not.toHaveFinalMessage',
      () => expect({ ...crashed, finalMessage: 'a refund' }).not.toHaveFinalMessage('refund'),
    ],
    ['toHaveStepCount', () => expect({ ...crashed, modelCalls: [] }).toHaveStepCount(2)],
  ])('%s', (_, assertion) => {
    expect(failureOf(assertion)).toContain("The run ended 'errored': the agent threw TypeError: Cannot read");
  });

  it('says when it timed out', () => {
    const timedOut = runOf([], {
      terminalState: 'timed_out',
      error: new Error('the agent did not finish within 20 ms'),
    });
    expect(failureOf(() => expect(timedOut).toHaveCalledTool('x'))).toContain(
      "The run ended 'timed_out': the agent timed out: Error: the agent did not finish within 20 ms",
    );
  });

  it('adds nothing on a run that ended well, or to a passing assertion', () => {
    expect(failureOf(() => expect(runOf([])).toHaveCalledTool('x'))).not.toContain('The run ended');
    expect(crashed).toHaveCalledTool('lookup');
  });

  it.each(THROWN)('prints %s as thrown, without crashing the matcher', (_, thrown, shown) => {
    const run = runOf([], { terminalState: 'errored', error: thrown });
    const message = failureOf(() => expect(run).toHaveTerminalState('succeeded'));
    expect(message).toContain('Received terminal state: "errored"');
    expect(message).toMatch(shown);
    expect(failureOf(() => expect(run).toHaveFinalMessage('x'))).toMatch(shown);
  });

  it('plainError reads an event by its class, message and the stack of the error it carries', () => {
    const error = new Error('connect ECONNREFUSED');
    expect(plainError(new ErrorEvent('connect ECONNREFUSED', error))).toEqual({
      name: 'ErrorEvent',
      message: 'connect ECONNREFUSED',
      stack: error.stack,
    });
  });
});

describe('building the message of a failing matcher on a crashed run', () => {
  it('is not the test looking at how the run ended', async () => {
    const run: Run = await understudy.run(async () => crashAgent(), { expectError: true });
    const watch = new OutcomeWatch();
    watch.watch(run, undefined, true);
    expect(failureOf(() => expect(run).toHaveFinalMessage('refund'))).toContain("The run ended 'errored'");
    expect(run).not.toHaveFinalMessage('refund');
    expect(run).not.toHaveCalledTool('refund');
    expect(watch.take(true)).toHaveLength(1);
  });
});
