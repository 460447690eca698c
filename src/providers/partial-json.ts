/**
 * Tool arguments cut off mid-way (a reply that ran out of tokens) read as far as their whole
 * values go, as the Anthropic SDK reads a streamed `tool_use` input: `{"city":"Paris","n":1`
 * is `{ city: "Paris" }`. Protocols that put arguments on the wire as an object (Anthropic,
 * Gemini, Bedrock) send this, so a plain reply and the client's reading of the stream agree.
 */

/** Whether the text is a zero-argument call: nothing, or an empty object. */
export function isEmptyArguments(text: string): boolean {
  const t = text.trim();
  return t === '' || /^\{\s*\}$/.test(t);
}

/**
 * Whether argument text is a whole JSON object or array. No cut-off prefix of one parses, so
 * arguments read back from a cut stream that pass are all the model meant to send.
 */
export function isWholeJson(text: string): boolean {
  const t = text.trimStart();
  if (t[0] !== '{' && t[0] !== '[') return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

type Frame = { close: '}' | ']'; key: boolean };

/**
 * Where the text can be cut and closed: after each value known to be whole (a string value, a
 * closed container, a number or literal a delimiter ended), with the containers open there.
 * A value still running at the end (a string, a number that may go on) is left out, as the
 * Anthropic SDK's partial parser leaves it out of a streamed `tool_use` input.
 */
function lastWhole(text: string): { end: number; open: Frame[] } | undefined {
  const stack: Frame[] = [];
  let safe: { end: number; open: Frame[] } | undefined;
  const mark = (end: number) => {
    safe = { end, open: stack.map((f) => ({ ...f })) };
  };
  let scalar = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (scalar !== -1) {
      if (!/[\s,\]}]/.test(c)) continue;
      scalar = -1;
      mark(i);
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) if (text[j] === '\\') j++;
      if (j >= text.length) break;
      if (top?.close === '}' && top.key) top.key = false;
      else mark(j + 1);
      i = j;
    } else if (c === '{' || c === '[') stack.push({ close: c === '{' ? '}' : ']', key: c === '{' });
    else if (c === '}' || c === ']') {
      stack.pop();
      mark(i + 1);
    } else if (c === ',') {
      if (top?.close === '}') top.key = true;
    } else if (!/[\s:]/.test(c)) scalar = i;
  }
  if (scalar !== -1 && stack.length === 0) mark(text.length);
  return safe;
}

/** The whole values of a prefix of JSON, closed; undefined when it has none. */
export function parsePartialJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // cut off: read the values that are whole
  }
  const at = lastWhole(text);
  const head = at ? text.slice(0, at.end) : /^\s*\{/.test(text) ? '{' : /^\s*\[/.test(text) ? '[' : '';
  const open = at
    ? at.open
    : head === '{'
      ? [{ close: '}' as const, key: true }]
      : head === '['
        ? [{ close: ']' as const, key: false }]
        : [];
  const closed =
    head.replace(/[\s,]+$/, '') +
    open
      .map((f) => f.close)
      .reverse()
      .join('');
  try {
    return JSON.parse(closed);
  } catch {
    return undefined;
  }
}

/** Arguments as the object a protocol puts on the wire: whole, or as far as a cut text goes. */
export function argumentsObject(text: string): Record<string, unknown> {
  const value = parsePartialJson(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
