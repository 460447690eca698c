/**
 * `sseDataSharing(head)(tail)` writes the bytes `sseData({ ...head, ...tail })` does, for any head
 * and tail: the stream encoders use it for the fields every event repeats.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { sseData, sseDataSharing } from '../../../../src/providers/codec';

const key = fc.constantFrom('id', 'object', 'created', 'model', 'choices', 'usage', 'delta', '0', '');
const value = fc.oneof(fc.jsonValue(), fc.constant(undefined));
const record = fc.dictionary(key, value, { maxKeys: 6 });

describe('sseDataSharing', () => {
  it('writes what sseData writes for the head and tail together', () => {
    fc.assert(
      fc.property(record, fc.array(record, { maxLength: 4 }), (head, tails) => {
        const event = sseDataSharing(head);
        for (const tail of tails) expect(event(tail)).toBe(sseData({ ...head, ...tail }));
      }),
      { seed: 20261201, numRuns: 500 },
    );
  });

  it('keeps the tail after the head, and a key both have in the head’s place with the tail’s value', () => {
    const event = sseDataSharing({ id: 'a', model: 'm' });
    expect(event({ choices: [] })).toBe('data: {"id":"a","model":"m","choices":[]}\n\n');
    expect(event({ id: 'b', usage: null })).toBe('data: {"id":"b","model":"m","usage":null}\n\n');
    expect(sseDataSharing({})({})).toBe('data: {}\n\n');
    expect(sseDataSharing({ id: undefined })({ x: 1 })).toBe('data: {"x":1}\n\n');
  });
});
