/**
 * Makes a bundle pure ASCII, for the bundle scripts (./bundle-sandbox.cjs, ./bundle-host.cjs).
 *
 * Why: V8 keeps a source that holds one character beyond ASCII as a two-byte string, and Node
 * decodes it from UTF-8 so: every process that compiles the bundle (a Jest worker, a Vitest test
 * file) pays for the decoding and for scanning twice the bytes, code cache or not. esbuild's
 * `charset: 'ascii'` escapes strings, identifiers and untagged templates; what it leaves is in
 * comments, regular-expression literals and tagged templates.
 *
 * Here every such character is written as a `\uXXXX` escape, which keeps a comment a comment, and
 * then esbuild proves the program unchanged: printed without comments and whitespace, the two
 * texts must be the same. An escape in a regular expression or a tagged template changes its text (a raw
 * template's value, `\u` after a backslash), so there the build fails: write the escape in the
 * source instead, where its meaning is yours to check.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const esbuild = require('esbuild');

const NON_ASCII = /[^\x00-\x7f]/g;
const ANY_NON_ASCII = /[^\x00-\x7f]/;

/** Every UTF-16 unit beyond ASCII as `\uXXXX`. */
const escaped = (text) =>
  text.replace(NON_ASCII, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The program without its comments: what the escape must not change. */
const program = (text) =>
  esbuild.transformSync(text, { loader: 'js', minifyWhitespace: true, legalComments: 'none', charset: 'utf8' }).code;

/** `text` with every character beyond ASCII escaped; throws when an escape would change the program. */
function asciiSource(text, name = 'the bundle') {
  if (!ANY_NON_ASCII.test(text)) return text;
  const ascii = escaped(text);
  if (program(ascii) !== program(text)) {
    const lines = text
      .split('\n')
      .map((line, i) => ({ line: line.trim(), at: i + 1 }))
      .filter(({ line }) => ANY_NON_ASCII.test(line) && !/^(\/\/|\/\*|\*)/.test(line));
    throw new Error(
      `${name} holds characters beyond ASCII in a regular expression or a tagged template; ` +
        `write them as \\u escapes in the source:\n${lines.map(({ line, at }) => `  line ${at}: ${line.slice(0, 160)}`).join('\n')}`,
    );
  }
  return ascii;
}

/** Rewrites the bundle `file` as pure ASCII (see asciiSource). */
function writeAscii(file) {
  writeFileSync(file, asciiSource(readFileSync(file, 'utf8'), file));
}

module.exports = { asciiSource, writeAscii };
