/**
 * What `understudy mcp stdio` writes back: JSON-RPC 2.0 only, one response per request, nothing
 * for a notification. End to end with the MCP SDK's client: __tests__/installed/truthful.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { classify, repliesFor } from '../../../../src/cli/mcp-replies';

describe('classify', () => {
  it('tells requests, notifications and responses apart, and names what is invalid', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual({
      kind: 'request',
      id: 1,
      method: 'tools/list',
    });
    expect(classify({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      kind: 'notification',
    });
    expect(classify({ jsonrpc: '2.0', id: 'x', result: {} })).toEqual({ kind: 'response' });
    expect(classify({ id: 3, method: 'ping' })).toEqual({
      kind: 'invalid',
      id: 3,
      why: '"jsonrpc" must be "2.0"',
    });
    expect(classify({ jsonrpc: '2.0', id: { no: 1 }, method: 'ping' })).toMatchObject({
      kind: 'invalid',
      id: null,
    });
    expect(classify([1])).toMatchObject({ kind: 'invalid', id: null });
    expect(classify({ jsonrpc: '2.0', id: 4 })).toMatchObject({ kind: 'invalid', id: 4 });
  });
});

describe('repliesFor', () => {
  const call = { id: 7, method: 'tools/call' };

  it('passes a JSON-RPC response of the request through', () => {
    expect(repliesFor([call], [{ jsonrpc: '2.0', id: 7, result: { content: [] } }], 200)).toEqual([
      { jsonrpc: '2.0', id: 7, result: { content: [] } },
    ]);
  });

  it("turns the served port's own refusal into a JSON-RPC error of the request, its code kept in data", () => {
    const refusal = {
      error: { code: 'RUN_ENDED', message: 'the run has already ended', retryable: false, status: 410 },
    };
    expect(repliesFor([call], [refusal], 410)).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32000,
          message: 'the run has already ended',
          data: { status: 410, code: 'RUN_ENDED' },
        },
      },
    ]);
  });

  it('gives a transport refusal (id null) the id of the request it refused', () => {
    expect(
      repliesFor(
        [call],
        [{ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }],
        404,
      ),
    ).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'Session not found' } }]);
  });

  it('never passes on a string error code, and answers a request nothing answered', () => {
    const [reply] = repliesFor(
      [call],
      [{ jsonrpc: '2.0', id: 7, error: { code: 'BUSY', message: 'x' } }],
      500,
    );
    expect(Number.isInteger(reply.error?.code)).toBe(true);
    expect(repliesFor([call], [], 502)).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32603,
          message: 'the served MCP endpoint answered 502 without a response to this request',
          data: { status: 502 },
        },
      },
    ]);
    expect(repliesFor([call], ['<html>Bad gateway</html>'], 502)[0].error).toMatchObject({ code: -32000 });
  });

  it('answers nothing when nothing was a request (a notification), whatever came back', () => {
    expect(repliesFor([], [{ error: { code: 'RUN_ENDED', message: 'ended' } }], 410)).toEqual([]);
  });

  it('answers each request of a batch once, by id', () => {
    const replies = repliesFor(
      [
        { id: 1, method: 'a' },
        { id: 2, method: 'b' },
      ],
      [
        { jsonrpc: '2.0', id: 2, result: {} },
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 1, result: { again: true } },
      ],
      200,
    );
    expect(replies.map((r) => r.id)).toEqual([2, 1]);
  });
});
