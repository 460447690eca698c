/**
 * The server-sent events a codec framed, read back into values and framed again: dialects
 * and mid-stream errors rewrite a codec's stream as data, and the frames go out with the
 * codec's own line endings. Only the codecs' own framing is read here (one optional
 * `event:` line and one `data:` line), never arbitrary SSE.
 */

export interface SseFrame {
  /** The `event:` name (Anthropic, Responses API), if any. */
  event?: string;
  /** The JSON data; `undefined` for a frame whose data is not JSON (`[DONE]`) or a comment. */
  data?: any;
  /** The frame exactly as sent, kept for frames that are not JSON data. */
  raw?: string;
  /** The line ending the codec used (`\r\n` for Gemini). */
  eol: string;
}

const FRAME = /^(?:event: ([^\r\n]*)(\r?\n))?data: ([^\r\n]*)(\r?\n)\r?\n$/;

export function readFrame(text: string): SseFrame {
  const m = FRAME.exec(text);
  if (!m) return { raw: text, eol: '\n' };
  const eol = m[4];
  try {
    return { ...(m[1] !== undefined ? { event: m[1] } : {}), data: JSON.parse(m[3]), eol };
  } catch {
    return { raw: text, eol };
  }
}

export function writeFrame(frame: SseFrame): string {
  if (frame.data === undefined) return frame.raw ?? '';
  const { eol } = frame;
  const head = frame.event === undefined ? '' : `event: ${frame.event}${eol}`;
  return `${head}data: ${JSON.stringify(frame.data)}${eol}${eol}`;
}

/** A frame of JSON data, with the line ending of the stream it joins. */
export function dataFrame(data: unknown, eol = '\n', event?: string): SseFrame {
  return { ...(event !== undefined ? { event } : {}), data, eol };
}

/** An SSE comment line: clients skip it (gateways send them to keep a connection open). */
export function commentFrame(text: string, eol = '\n'): SseFrame {
  return { raw: `: ${text}${eol}${eol}`, eol };
}
