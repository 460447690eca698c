/**
 * The bundles are made pure ASCII (scripts/bundle-ascii.cjs): a character beyond ASCII in a comment
 * is escaped, and the build refuses where an escape would change the program (a regular expression,
 * a tagged template's raw text, a line separator that ends a `//` comment).
 */
import vm from 'node:vm';
import { describe, expect, it } from '@jest/globals';

const { asciiSource } = require('../../../scripts/bundle-ascii.cjs') as {
  asciiSource(text: string, name?: string): string;
};

const isAscii = (text: string) => Buffer.from(text).every((byte) => byte < 0x80);
const run = (text: string) => vm.runInNewContext(`${text}\nresult`);

describe('asciiSource', () => {
  it('leaves an ASCII source as it is', () => {
    const text = 'var result = "plain"; // nothing else\n';
    expect(asciiSource(text)).toBe(text);
  });

  it('escapes comments, line and block, and keeps the program and its line numbers', () => {
    const text =
      '// ── a heading — “quoted” 😀\nvar result = [1, 2 /* … */].join("\\u2022");\n/** `idPrefix` (`call_`, …) */\n';
    const ascii = asciiSource(text);
    expect(isAscii(ascii)).toBe(true);
    expect(ascii.split('\n')).toHaveLength(text.split('\n').length);
    expect(ascii).toContain('// \\u2500\\u2500 a heading');
    expect(run(ascii)).toBe(run(text));
  });

  it.each([
    ['a regular expression', 'var result = /^[*x•.]+$/i.test("••");'],
    ['an astral character in a regular expression', 'var result = /^[😀]$/u.test("😀");'],
    ['a raw template', 'var result = String.raw`a•b`;'],
    ['a tagged template', 'var tag = (s) => s.raw[0]; var result = tag`→`;'],
    ['a line separator in a line comment', 'var result = 1; // ends here\u2028result = 2;'],
  ])('refuses %s, naming the bundle and the line', (_, text) => {
    expect(() => asciiSource(text, 'dist/x.cjs')).toThrow(/^dist\/x\.cjs holds characters beyond ASCII/);
  });

  it('keeps an escaped regular expression or template written so in the source', () => {
    const text = '// why: •\nvar result = [/^[*x\\u2022.]+$/i.test("\\u2022"), String.raw`\\u2192`.length];';
    expect(asciiSource(text)).toContain('/^[*x\\u2022.]+$/i');
    expect(run(asciiSource(text))).toEqual([true, 6]);
  });
});
