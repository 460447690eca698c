/**
 * A trajectory is the tools the model asked for, their argument shapes and the state it ended
 * in, built alike from live replies and from a cassette's fixtures; values and prose never enter it.
 */
import { describe, expect, it } from '@jest/globals';
import type { Fixture } from '../../../../src/fixtures/types';
import {
  argumentsShape,
  recordedTrajectory,
  shapeOf,
  trajectoryKey,
  trajectoryOf,
} from '../../../../src/nightly/trajectory';

describe('shapeOf', () => {
  it('keeps keys and types, never values, with keys sorted', () => {
    expect(shapeOf({ b: 1, a: 'x', c: null, d: [1, 'y', 2], e: { f: true } })).toBe(
      '{a:string,b:number,c:null,d:[number|string],e:{f:boolean}}',
    );
    expect(shapeOf({ a: 'one' })).toBe(shapeOf({ a: 'another' }));
  });

  it('reads arguments as JSON text, or says text when they are not JSON', () => {
    expect(argumentsShape('{"orderId":"A-1"}')).toBe('{orderId:string}');
    expect(argumentsShape({ orderId: 'A-1' })).toBe('{orderId:string}');
    expect(argumentsShape('{"orderId":')).toBe('text');
  });
});

describe('trajectoryOf', () => {
  const call = (name: string, args: string) => ({ name, arguments: args });

  it('lists the tools in order and ends in the last reply’s finish reason', () => {
    const t = trajectoryOf([
      { reply: { toolCalls: [call('a', '{"x":1}'), call('b', '{}')], finishReason: 'tool_calls' } },
      { reply: { toolCalls: [], finishReason: 'stop' } },
    ]);
    expect(t).toEqual({
      tools: [
        { tool: 'a', shape: '{x:number}' },
        { tool: 'b', shape: '{}' },
      ],
      terminal: 'stop',
    });
    expect(trajectoryKey(t)).toBe('a → b ⇒ stop');
  });

  it('names an error, a cut reply, a refusal and no call at all', () => {
    expect(trajectoryOf([{ error: { status: 429 } }]).terminal).toBe('error:429');
    expect(trajectoryOf([{ reply: { finishReason: 'stop' }, cut: true }]).terminal).toBe('cut');
    expect(trajectoryOf([{ reply: { finishReason: 'stop', refusal: 'no' } }]).terminal).toBe('refusal');
    expect(trajectoryOf([])).toEqual({ tools: [], terminal: 'no-call' });
    expect(trajectoryKey(trajectoryOf([]))).toBe('(no tool) ⇒ no-call');
  });
});

describe('recordedTrajectory', () => {
  it('reads a cassette’s fixtures as the live replies are read', () => {
    const fixtures = [
      { match: {}, response: { toolCalls: [{ name: 'lookup', arguments: { id: 'A' } }] } },
      { match: {}, response: { content: 'done' } },
    ] as Fixture[];
    expect(recordedTrajectory(fixtures)).toEqual({
      tools: [{ tool: 'lookup', shape: '{id:string}' }],
      terminal: 'stop',
    });
    expect(
      recordedTrajectory([{ match: {}, response: { error: { message: 'x', status: 500 } } }] as Fixture[])
        .terminal,
    ).toBe('error:500');
  });
});
