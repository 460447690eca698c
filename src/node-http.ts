/**
 * A node:http (or http2) server request as a WHATWG Request, and a Response written back: the
 * one conversion the environment's serving bridge and the served port of `understudy.serve()`
 * both make. The body is streamed as it is produced (SSE pacing reaches the client as it
 * would from the provider), with backpressure; a body that fails midway drops the connection.
 */
import { once } from 'node:events';
import type http from 'node:http';
import type http2 from 'node:http2';

/** Connection-level headers that neither a `Request` nor HTTP/2 carries. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
]);

type ServerRequest = http.IncomingMessage | http2.Http2ServerRequest;
type ServerResponse = http.ServerResponse | http2.Http2ServerResponse;

async function collect(req: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * The request at `url` (the server's origin + `req.url`), its body read; its signal aborts when
 * the client goes away before the answer is complete. `skip`: more headers to leave out.
 */
export async function toRequest(
  req: ServerRequest,
  res: ServerResponse,
  url: string,
  skip?: string,
): Promise<Request> {
  const method = req.method ?? 'GET';
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!name.startsWith(':') && !HOP_BY_HOP.has(name) && name !== skip) headers.append(raw[i], raw[i + 1]);
  }
  const body = method === 'GET' || method === 'HEAD' ? undefined : await collect(req);
  const aborted = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort(new Error('the client closed the connection'));
  });
  return new Request(url, {
    method,
    headers,
    body: body as unknown as BodyInit | undefined,
    signal: aborted.signal,
  });
}

/** Writes `response` (a `Response.error()` drops the connection). */
export async function respond(req: ServerRequest, res: ServerResponse, response: Response): Promise<void> {
  if (response.type === 'error') return void res.destroy();
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie' && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  if (req.httpVersionMajor < 2 && response.statusText)
    (res as http.ServerResponse).statusMessage = response.statusText;
  res.statusCode = response.status;
  if (!response.body || req.method === 'HEAD') {
    await response.body?.cancel();
    res.end();
    return;
  }
  // A body that is not an event stream goes out in one write with its length (no chunked framing).
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    let bytes: Buffer;
    try {
      bytes = Buffer.from(await response.arrayBuffer());
    } catch {
      return void res.destroy();
    }
    res.setHeader('content-length', bytes.length);
    res.end(bytes);
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(res as http.ServerResponse).write(value))
        await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (res.destroyed) return void reader.cancel().catch(() => {});
    }
    res.end();
  } catch {
    // A stream that fails midway (a disconnect fault): the client sees the connection drop.
    res.destroy();
  }
}
