/**
 * The forms a known secret takes in the files written, so a value is blanked however it was
 * carried: as is; escaped for JSON (once and twice), URLs and HTML; and encoded as base64
 * (standard or URL-safe, as Basic credentials and data URLs carry it) or hex. An encoded value
 * usually sits inside a longer encoded string (`base64("user:" + key)`), so its base64 form is
 * looked for at each of the three byte alignments, and the whole encoded run around a match is
 * blanked: the characters next to it encode the secret's first and last bits.
 */

/** One form to look for; `run`: the characters of the encoding, blanked with it when they touch it. */
export interface Literal {
  text: string;
  run?: RegExp;
}

/** Base64 characters, URL-encoded ones (`%3D` padding) included. */
const BASE64_CHAR = /[A-Za-z0-9+/_=%-]/;
const HEX_CHAR = /[0-9a-fA-F]/;
/** A shorter encoded fragment could be found by chance in unrelated base64. */
const MIN_ENCODED = 8;

const htmlEscaped = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

const urlSafe = (base64: string) => base64.replace(/\+/g, '-').replace(/\//g, '_');

/**
 * The base64 characters that encode `bytes` alone, whatever comes before and after them, for a
 * value starting at each offset modulo 3 of the encoded string.
 */
function base64Fragments(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const total = shift + bytes.length;
    const fragment = encoded.slice(Math.ceil((shift * 4) / 3), Math.floor((total * 4) / 3));
    if (fragment.length >= MIN_ENCODED) out.push(fragment);
  }
  return out;
}

function formsOf(value: string): Literal[] {
  const json = JSON.stringify(value).slice(1, -1);
  const plain: Literal[] = [
    value,
    json,
    JSON.stringify(json).slice(1, -1),
    encodeURIComponent(value),
    htmlEscaped(value),
  ].map((text) => ({ text }));
  const bytes = Buffer.from(value, 'utf8');
  const encoded: Literal[] = [];
  for (const fragment of base64Fragments(bytes)) {
    encoded.push({ text: fragment, run: BASE64_CHAR });
    if (urlSafe(fragment) !== fragment) encoded.push({ text: urlSafe(fragment), run: BASE64_CHAR });
    const escaped = encodeURIComponent(fragment);
    if (escaped !== fragment) encoded.push({ text: escaped, run: BASE64_CHAR });
  }
  const hex = bytes.toString('hex');
  if (hex.length >= MIN_ENCODED)
    for (const text of [hex, hex.toUpperCase()]) encoded.push({ text, run: HEX_CHAR });
  return [...plain, ...encoded];
}

/** Every form of every value, longest first (so a value that contains another is blanked whole). */
export function literalForms(values: Iterable<string>): Literal[] {
  const forms = new Map<string, Literal>();
  for (const value of values) {
    if (value === '') continue;
    for (const form of formsOf(value)) if (!forms.has(form.text)) forms.set(form.text, form);
  }
  return [...forms.values()].sort((a, b) => b.text.length - a.text.length);
}

/** The text with every form replaced by `replacement` (an encoded one with the run around it). */
export function replaceLiterals(text: string, literals: readonly Literal[], replacement: string): string {
  let out = text;
  for (const { text: form, run } of literals) {
    if (!out.includes(form)) continue;
    if (!run) {
      out = out.split(form).join(replacement);
      continue;
    }
    for (let at = out.indexOf(form); at >= 0; at = out.indexOf(form, at + replacement.length)) {
      let start = at;
      let end = at + form.length;
      while (start > 0 && run.test(out[start - 1])) start--;
      while (end < out.length && run.test(out[end])) end++;
      out = out.slice(0, start) + replacement + out.slice(end);
      at = start;
    }
  }
  return out;
}

/** Which form of `value` the text holds, named for a message; undefined when none. */
export function formFound(text: string, value: string): string | undefined {
  if (text.includes(value)) return 'as is';
  for (const form of formsOf(value).slice(1))
    if (form.text !== value && text.includes(form.text))
      return form.run === HEX_CHAR ? 'hex-encoded' : form.run ? 'base64-encoded' : 'escaped';
  return undefined;
}
