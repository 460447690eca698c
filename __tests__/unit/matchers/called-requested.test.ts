/**
 * "Called" means the agent ran the call (it sent a result back, or a world operation served it);
 * the model's requests are asserted with the requested matchers. A call whose arguments never
 * completed on the wire matches no argument expectation. End to end from the installed package:
 * __tests__/installed/truthful.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { matchers, type RunLike } from '../../../matchers';
import { failureOf } from './helpers';

expect.extend(matchers);

/** The model asked for the weather in Paris; the agent returned without running it. */
const dropped: RunLike = {
  terminalState: 'failed',
  toolCalls: [{ id: 'c0', name: 'get_weather', arguments: { city: 'Paris' }, answered: false }],
};

/** The agent ran `lookup` (its result went back) and `refund` (a world operation served it), and dropped `email`. */
const mixed: RunLike = {
  terminalState: 'succeeded',
  toolCalls: [
    { id: 'c0', name: 'lookup', arguments: { id: 'A-1' }, answered: true },
    { id: 'c1', name: 'email', arguments: { to: 'kim' }, answered: false },
    { id: 'c2', name: 'refund', arguments: { id: 'A-1', amount: 5 }, answered: false, operations: [1] },
  ],
  operations: [
    { seq: 1, packageId: 'shop', operationId: 'refunds.create', outcome: { kind: 'ok', value: {} } },
  ],
};

/** The stream was cut inside the arguments of `transfer`: the agent got half a JSON object. */
const cut: RunLike = {
  terminalState: 'failed',
  toolCalls: [
    {
      id: 'c0',
      name: 'transfer',
      arguments: { to: 'alice', amount: 100 },
      answered: true,
      incomplete: true,
    },
  ],
};

describe('a call the model requested and the agent never ran', () => {
  it('is not called: toHaveCalledTool and toHaveCalledToolSequence fail, saying exactly that', () => {
    const message = failureOf(() => expect(dropped).toHaveCalledTool('get_weather', { city: 'Paris' }));
    expect(message).toContain('Received: the agent ran no tool calls');
    expect(message).toContain(
      'The model requested "get_weather {\\"city\\": \\"Paris\\"}" (step 0), but the agent never ran it: no later request carried its result and no world operation served it.',
    );
    expect(message).toContain("to assert the model's request itself, use toHaveRequestedTool");
    expect(failureOf(() => expect(dropped).toHaveCalledTool('get_weather'))).toContain(
      'but the agent never ran it',
    );
    const sequence = failureOf(() => expect(dropped).toHaveCalledToolSequence(['get_weather']));
    expect(sequence).toContain(
      '1 step expected, 0 calls received (the agent ran them; 1 more requested, never run)',
    );
    expect(sequence).toContain('Requested by the model but never run');
    expect(sequence).toContain('toolCalls[0] get_weather {"city": "Paris"}');
    expect(sequence).toContain('use toHaveRequestedToolSequence');
    for (const mode of ['ordered', 'unordered', 'contains'] as const)
      expect(() => expect(dropped).toHaveCalledToolSequence(['get_weather'], { mode })).toThrow(/never run/);
    // Nothing ran, so nothing ran outside the steps.
    expect(dropped).toHaveCalledToolSequence(['get_weather'], { mode: 'within' });
    expect(dropped).not.toHaveCalledTool('get_weather');
    expect(dropped).toHaveCalledTool('get_weather', undefined, { times: 0 });
  });

  it('is asserted with the requested matchers, args and all', () => {
    expect(dropped).toHaveRequestedTool('get_weather', { city: 'Paris' });
    expect(dropped).toHaveRequestedTool('get_weather', undefined, { outcome: 'unanswered', times: 1 });
    expect(dropped).toHaveRequestedToolSequence([{ name: 'get_weather', args: { city: 'Paris' } }]);
    expect(dropped).not.toHaveRequestedTool('get_weather', { city: 'Rome' });
    expect(failureOf(() => expect(dropped).toHaveRequestedTool('get_weather', { city: 'Rome' }))).toContain(
      'Closest call to "get_weather" (step 0)',
    );
  });

  it('is left out of the trajectory; the calls the agent ran stay in order', () => {
    expect(mixed).toHaveCalledToolSequence(['lookup', 'refund']);
    expect(mixed).toHaveCalledToolSequence(['lookup', 'refund'], { mode: 'within' });
    expect(mixed).not.toHaveCalledToolSequence(['lookup', 'email', 'refund']);
    expect(mixed).toHaveRequestedToolSequence(['lookup', 'email', 'refund']);
    expect(mixed).toHaveCalledTool('refund', { amount: 5 }, { outcome: 'ok' });
    expect(mixed).not.toHaveCalledTool('email');
    expect(mixed).toHaveRequestedTool('email', { to: 'kim' });
  });

  it('is no call for toOnlyCallTools and toNeverCallTools: a guard that dropped it did its job', () => {
    expect(mixed).toOnlyCallTools(['lookup', 'refund']);
    expect(mixed).toNeverCallTools(['email']);
    const message = failureOf(() => expect(mixed).toNeverCallTools(['refund']));
    expect(message).toContain('Received 2 calls the agent ran, 1 forbidden:');
    expect(message).toContain('> 2 refund {"amount": 5, "id": "A-1"}   ✗ forbidden (0)');
    expect(message).toContain('toolCalls[1] email {"to": "kim"}');
  });

  it('a call the agent ran is called whichever way it shows: a result sent back, or a world operation', () => {
    expect(mixed).toHaveCalledTool('lookup');
    expect(mixed).toHaveCalledTool('refund');
    // A run-like object that says nothing about answers: its calls count as run, as they always did.
    expect({ toolCalls: [{ name: 'lookup', arguments: {} }] }).toHaveCalledTool('lookup');
  });
});

describe('a call whose arguments were cut', () => {
  it('matches no argument expectation, in any matcher, and the failure says its arguments were cut', () => {
    const message = failureOf(() => expect(cut).toHaveCalledTool('transfer', { to: 'alice', amount: 100 }));
    expect(message).toContain('transfer {"amount": 100, "to": "alice"} (arguments cut)');
    expect(message).toContain(
      'The call to "transfer" at step 0 cannot match arguments: they were cut (they never completed on the wire), so no argument expectation holds for them.',
    );
    expect(() => expect(cut).toHaveCalledTool('transfer', expect.anything())).toThrow(
      /arguments: they were cut/,
    );
    expect(() => expect(cut).toHaveRequestedTool('transfer', { to: 'alice' })).toThrow(/they were cut/);
    expect(cut).not.toHaveCalledTool('transfer', { to: 'alice' });
    for (const args of ['contains', 'exact', 'within'] as const)
      expect(() =>
        expect(cut).toHaveCalledToolSequence([{ name: 'transfer', args: { to: 'alice', amount: 100 } }], {
          args,
        }),
      ).toThrow(/its arguments were cut/);
    expect(() =>
      expect(cut).toHaveCalledToolSequence([{ name: 'transfer', args: { to: 'alice' } }], {
        argsBy: { transfer: () => true },
      }),
    ).toThrow(/cut/);
    expect(() =>
      expect(cut).toHaveCalledToolSequence([{ name: 'transfer', args: { to: 'alice' } }], {
        argsBy: { transfer: ['to'] },
      }),
    ).toThrow(/cut/);
    expect(cut).toNeverCallTools([{ name: 'transfer', args: { to: 'alice' } }]);
    expect(() => expect(cut).toOnlyCallTools([{ name: 'transfer', args: { to: 'alice' } }])).toThrow(
      /transfer \{"amount": 100, "to": "alice"\} \(arguments cut\)/,
    );
  });

  it('still matches by name, where no argument is expected', () => {
    expect(cut).toHaveCalledTool('transfer');
    expect(cut).toHaveCalledToolSequence(['transfer']);
    expect(cut).toHaveCalledToolSequence([{ name: 'transfer', args: { to: 'bob' } }], { args: 'ignore' });
    expect(() => expect(cut).toNeverCallTools(['transfer'])).toThrow(/forbidden/);
  });
});
