/**
 * Tool arguments cut off mid-way (a reply that ran out of tokens) read as far as they go, as
 * the Anthropic SDK reads a streamed `tool_use` input: `{"city":"Par` is `{ city: "Par" }`.
 * Protocols that put arguments on the wire as an object (Anthropic, Gemini, Bedrock) send this.
 */

/** Whether the text is a zero-argument call: nothing, or an empty object. */
export function isEmptyArguments(text: string): boolean {
  const t = text.trim();
  return t === '' || /^\{\s*\}$/.test(t);
}

/** Closes what `prefix` left open: a string, then the arrays and objects around it. */
function closed(prefix: string): string {
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') stack.pop();
  }
  let text = prefix;
  if (inString) text += text.endsWith('\\') ? '\\"' : '"';
  text = text.replace(/[\s,]+$/, '');
  return text + stack.reverse().join('');
}

/** The longest prefix of `text` that reads as JSON once closed; undefined when none does. */
export function parsePartialJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // cut off: read as far as it goes
  }
  for (let end = text.length; end > 0; end--) {
    try {
      return JSON.parse(closed(text.slice(0, end)));
    } catch {
      // shorter
    }
  }
  return undefined;
}

/** Arguments as the object a protocol puts on the wire: whole, or as far as a cut text goes. */
export function argumentsObject(text: string): Record<string, unknown> {
  const value = parsePartialJson(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
