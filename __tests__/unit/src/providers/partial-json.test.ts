import { describe, expect, it } from '@jest/globals';
import { argumentsObject, isEmptyArguments, parsePartialJson } from '../../../../src/providers/partial-json';

describe('cut-off tool arguments', () => {
  it('keep their whole values, as the Anthropic SDK reads a streamed tool_use input', () => {
    const cases: Array<[string, unknown]> = [
      ['{"city":"Par', {}],
      ['{"city":"Paris","n":1', { city: 'Paris' }],
      ['{"city":"Paris","n":', { city: 'Paris' }],
      ['{"a":[1,2', { a: [1] }],
      ['{"a":{"b":"x"', { a: { b: 'x' } }],
      ['{"a":true,', { a: true }],
      ['{"k"', {}],
      ['{"a":"x\\"y', {}],
      ['[1,2,3', [1, 2]],
      ['{"city":"Paris"}', { city: 'Paris' }],
    ];
    for (const [text, value] of cases) expect([text, parsePartialJson(text)]).toEqual([text, value]);
  });

  it('as a wire object: arrays and text that is not JSON become {}', () => {
    expect(argumentsObject('[1,2]')).toEqual({});
    expect(argumentsObject('not json')).toEqual({});
    expect(argumentsObject('{"a":1')).toEqual({});
  });

  it('tells a zero-argument call', () => {
    for (const t of ['', '  ', '{}', '{ }']) expect(isEmptyArguments(t)).toBe(true);
    for (const t of ['{"a":1}', '[]', 'x']) expect(isEmptyArguments(t)).toBe(false);
  });
});
