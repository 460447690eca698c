/**
 * The `data` of each server-sent event in a stream read piece by piece: the Responses stream the
 * HTTP pipeline writes (`event:` and `data:` lines, a blank line after each event), or a
 * provider's in record mode (CRLF line ends, multi-line data).
 */
export class SseFrames {
  private buffer = '';

  /** The data of every event completed by `text`, in order. */
  push(text: string): string[] {
    this.buffer += text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    const events: string[] = [];
    let end = this.buffer.indexOf('\n\n');
    while (end !== -1) {
      const data = dataOf(this.buffer.slice(0, end));
      if (data !== undefined) events.push(data);
      this.buffer = this.buffer.slice(end + 2);
      end = this.buffer.indexOf('\n\n');
    }
    return events;
  }
}

function dataOf(frame: string): string | undefined {
  const lines = frame
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
  return lines.length === 0 ? undefined : lines.join('\n');
}
