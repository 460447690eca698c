/** Each SSE event (its name and data), however the stream is cut into pieces. */
import { describe, expect, it } from '@jest/globals';
import { SseFrames } from '../../../../../src/sockets/openai-responses-ws/sse-frames';

describe('SseFrames', () => {
  const stream =
    'event: response.created\ndata: {"type":"response.created"}\n\n' +
    ': keep-alive comment\n\n' +
    'event: response.completed\ndata: {"type":\ndata: "response.completed"}\n\n';

  it('yields each event whole, whatever the pieces', () => {
    const expected = [
      { type: 'response.created', data: '{"type":"response.created"}' },
      { type: 'response.completed', data: '{"type":\n"response.completed"}' },
    ];
    for (const size of [1, 3, 7, stream.length]) {
      const frames = new SseFrames();
      const events: unknown[] = [];
      for (let at = 0; at < stream.length; at += size)
        events.push(...frames.push(stream.slice(at, at + size)));
      expect(events).toEqual(expected);
    }
  });

  it('reads CRLF line ends, as a provider may send them', () => {
    expect(new SseFrames().push('event:a\r\ndata: {"a":1}\r\n\r\ndata:{"b":2}\r\n\r\n')).toEqual([
      { type: 'a', data: '{"a":1}' },
      { type: undefined, data: '{"b":2}' },
    ]);
  });

  it('keeps an event until its blank line arrives', () => {
    const frames = new SseFrames();
    expect(frames.push('data: {"a":1}\n')).toEqual([]);
    expect(frames.push('\n')).toEqual([{ type: undefined, data: '{"a":1}' }]);
  });

  it('reads a whole event pushed at once as it reads it in pieces', () => {
    for (const event of [
      'event: response.output_text.delta\ndata: {"delta":"a"}\n\n',
      'event:  spaced\ndata: {"a":1}\n\n',
      'event: empty\ndata: \n\n',
      'event: two\ndata: {"a":1}\n\nevent: three\ndata: {"b":2}\n\n',
      'event: multi\ndata: {"a":\ndata: 1}\n\n',
      'event: crlf\r\ndata: {"a":1}\r\n\r\n',
      'event: bare\ndata:{"a":1}\n\n',
      'event: cut\ndata: {"malformed":\n\n',
    ]) {
      // In two pieces, split inside its first field name: read the general way.
      const pieces = new SseFrames();
      const split = [...pieces.push(event.slice(0, 3)), ...pieces.push(event.slice(3))];
      expect(new SseFrames().push(event)).toEqual(split);
    }
  });
});
