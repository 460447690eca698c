/**
 * What a child process gets on the wire from the served port, which answers model calls
 * straight from the node:http request: the same bytes as an in-process call, streams event by
 * event, and every fault as the provider's connection would show it.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { runChild } from '../../../examples/support/child';

const AGENT = join(__dirname, 'child-agent.cjs');
const RAW = join(__dirname, 'raw-client.cjs');

interface Raw {
  status: number;
  headers: Record<string, string>;
  chunks: string[];
  complete: boolean;
  error: string | null;
}

function chat(question: string, stream: boolean): string {
  return JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }], stream });
}

/** The answer to a Chat Completions request, read as bytes by a client in another process. */
async function raw(question: string, stream: boolean, mode?: 'hang-up'): Promise<Raw> {
  const served = await understudy.serve();
  const url = `${served.urls.openai}/chat/completions`;
  const child = await runChild(
    process.execPath,
    [RAW, url, chat(question, stream), ...(mode ? [mode] : [])],
    {
      env: {},
    },
  );
  if (child.code !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as Raw;
}

async function agent(mode: 'ask' | 'stream', question: string) {
  const served = await understudy.serve();
  return runChild(process.execPath, [AGENT, mode, question], { env: served.env });
}

/** The call's ids vary with its place in the file's call log. */
const withoutIds = (text: string) => text.replace(/"id":"[^"]*"/g, '"id":"…"');

describe('the served port on the wire', () => {
  it('answers a plain call with the bytes an in-process call gets, in one body with its length', async () => {
    understudy.model.use([{ match: { userMessage: 'plain' }, response: { content: 'A plain answer.' } }]);

    const served = await raw('plain', false);
    const local = await fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer understudy-placeholder-key' },
      body: chat('plain', false),
    });

    expect(served).toMatchObject({ status: 200, complete: true, error: null });
    expect(served.headers['content-type']).toBe(local.headers.get('content-type'));
    expect(served.headers['content-length']).toBe(String(Buffer.byteLength(served.chunks.join(''))));
    expect(served.headers['transfer-encoding']).toBeUndefined();
    expect(withoutIds(served.chunks.join(''))).toBe(withoutIds(await local.text()));
    expect(JSON.parse(served.chunks.join('')).choices[0].message.content).toBe('A plain answer.');
  });

  it('streams the events an in-process call gets, chunked, to the end', async () => {
    understudy.model.use([
      { match: { userMessage: 'stream' }, response: { content: 'Streamed, bit by bit.', chunkSize: 4 } },
    ]);

    const served = await raw('stream', true);
    const local = await fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer understudy-placeholder-key' },
      body: chat('stream', true),
    });

    expect(served).toMatchObject({ status: 200, complete: true, error: null });
    expect(served.headers['content-type']).toBe(local.headers.get('content-type'));
    expect(served.headers['transfer-encoding']).toBe('chunked');
    const body = served.chunks.join('');
    expect(withoutIds(body)).toBe(withoutIds(await local.text()));
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect((await agent('stream', 'stream')).stdout).toBe('Streamed, bit by bit.\n');
  });

  it("ends a stream that fails mid-way with the provider's error event, which the SDK throws", async () => {
    understudy.model.use([
      {
        match: { userMessage: 'overloaded' },
        response: {
          content: 'This answer never ends.',
          chunkSize: 4,
          streamError: { message: 'The server is overloaded.' },
        },
      },
    ]);

    const served = await raw('overloaded', true);
    const child = await agent('stream', 'overloaded');

    expect(served).toMatchObject({ status: 200, complete: true, error: null });
    const events = served.chunks.join('').trim().split('\n\n');
    expect(events.length).toBeGreaterThan(1);
    expect(JSON.parse(events.at(-1)!.replace(/^data: /, ''))).toMatchObject({
      error: { message: 'The server is overloaded.' },
    });
    expect(child.code).toBe(1);
    expect(child.stderr).toContain('The server is overloaded.');
  });

  it('drops the connection mid-stream for a disconnect fault: part of the reply, then no end', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'cut' },
        response: { content: 'Cut off half way through.', chunkSize: 4, disconnect: true },
      },
    ]);

    const served = await raw('cut', true);
    const child = await agent('stream', 'cut');

    expect(served.status).toBe(200);
    expect(served.complete).toBe(false);
    expect(served.error).not.toBeNull();
    const body = served.chunks.join('');
    expect(body).toContain('data: {');
    expect(body).not.toContain('[DONE]');
    expect(child.code).toBe(1);
    // The evidence is what went out before the drop, for the raw client and the SDK alike.
    expect(understudy.model.calls.map((c) => [c.response?.content, c.cut?.reason])).toEqual([
      ['Cut off half way', 'disconnected'],
      ['Cut off half way', 'disconnected'],
    ]);
    expect(understudy.model.calls.map((c) => c.whole?.content)).toEqual([
      'Cut off half way through.',
      'Cut off half way through.',
    ]);
  });

  it('sends no response at all for a dropped request', async () => {
    understudy.model.use([
      { match: { userMessage: 'drop' }, response: { content: 'Never sent.' }, chaos: { dropRate: 1 } },
    ]);

    const served = await raw('drop', false);
    const child = await agent('ask', 'drop');

    expect(served).toMatchObject({ status: 0, chunks: [], complete: false });
    expect(served.error).not.toBeNull();
    expect(child.code).toBe(1);
    expect(child.stderr).toMatch(/Connection error/);
  });

  it('cuts a plain reply in half for a malformed fault, which the SDK cannot parse', async () => {
    understudy.model.use([
      { match: { userMessage: 'garbled' }, response: { content: 'Garbled on the way.', malformed: true } },
    ]);

    const served = await raw('garbled', false);
    const child = await agent('ask', 'garbled');

    expect(served).toMatchObject({ status: 200, complete: true });
    expect(() => JSON.parse(served.chunks.join(''))).toThrow();
    expect(served.headers['content-length']).toBe(String(Buffer.byteLength(served.chunks.join(''))));
    expect(child.code).toBe(1);
  });

  it('stops a paced stream whose client went away, fails nothing, and serves the next call', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'slow' },
        response: { content: 'A slow answer that nobody waits for.', chunkSize: 3, chunkDelay: 200 },
      },
      { match: { userMessage: 'after' }, response: { content: 'Still serving.' } },
    ]);

    const gone = await raw('slow', true, 'hang-up');
    const next = await agent('ask', 'after');

    expect(gone.status).toBe(200);
    expect(gone.chunks.join('')).not.toContain('[DONE]');
    expect(next).toEqual({ code: 0, stdout: 'Still serving.\n', stderr: '' });
    // The client hung up after the first event (the role, no text): that is all it got.
    expect(understudy.model.calls.map((c) => [c.streamed, c.response?.content, c.cut])).toEqual([
      [true, '', { reason: 'aborted', delivered: 1, of: expect.any(Number) }],
      [false, 'Still serving.', undefined],
    ]);
  });
});
