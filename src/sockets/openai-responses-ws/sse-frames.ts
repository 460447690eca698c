/** One server-sent event: its `event:` name when it has one, and its `data`. */
export interface SseFrame {
  type: string | undefined;
  data: string;
}

/**
 * Each server-sent event in a stream read piece by piece: the Responses stream the HTTP pipeline
 * writes (`event:` and `data:` lines, a blank line after each event), or a provider's in record
 * mode (CRLF line ends, multi-line data).
 */
export class SseFrames {
  private buffer = '';

  /** Every event completed by `text`, in order (one with no `data:` line is left out). */
  push(text: string): SseFrame[] {
    // The pipeline's own events come one whole `event:`/`data:` pair at a time: read in place.
    if (this.buffer === '') {
      const single = singleEvent(text);
      if (single) return [single];
    }
    this.buffer += text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    const events: SseFrame[] = [];
    let end = this.buffer.indexOf('\n\n');
    while (end !== -1) {
      const frame = frameOf(this.buffer.slice(0, end));
      if (frame !== undefined) events.push(frame);
      this.buffer = this.buffer.slice(end + 2);
      end = this.buffer.indexOf('\n\n');
    }
    return events;
  }
}

const fieldValue = (line: string, field: string) =>
  line.slice(line.startsWith(`${field}: `) ? field.length + 2 : field.length + 1);

function frameOf(frame: string): SseFrame | undefined {
  let type: string | undefined;
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith('data:')) data.push(fieldValue(line, 'data'));
    else if (line.startsWith('event:')) type = fieldValue(line, 'event');
  }
  return data.length === 0 ? undefined : { type, data: data.join('\n') };
}

/** `event: <type>\ndata: <data>\n\n` and nothing else, as the Responses encoder writes each event; else undefined. */
function singleEvent(text: string): SseFrame | undefined {
  if (!text.startsWith('event: ') || !text.endsWith('\n\n')) return undefined;
  const line = text.indexOf('\n');
  if (!text.startsWith('data: ', line + 1)) return undefined;
  const data = text.slice(line + 7, -2);
  if (data.includes('\n') || data.includes('\r') || text.lastIndexOf('\r', line) !== -1) return undefined;
  return { type: text.slice(7, line), data };
}
