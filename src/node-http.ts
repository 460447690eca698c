/**
 * A node:http (or http2) server request as a WHATWG Request, and a Response written back: the
 * one conversion the environment's socket server and the served port of `understudy.serve()`
 * both make. The body is streamed as it is produced (SSE pacing reaches the client as it
 * would from the provider), with backpressure; a body that fails midway drops the connection.
 * The served port's model answers skip the WHATWG objects both ways (`readBody` here, and
 * src/sandbox/write-answer.ts).
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

/**
 * The request's body, as it arrives; it fails if the client goes away before the end. With a
 * `content-length`, it is whole with its last byte, before the stream's `end` (a tick later).
 */
export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let done = false;
    const whole = () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    const declared = req.headers['content-length'];
    let left =
      declared === undefined || req.headers['transfer-encoding'] !== undefined ? -1 : Number(declared);
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (left <= 0) return;
      left -= chunk.length;
      if (left === 0) whole();
    });
    req.once('end', whole);
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('the client closed the connection before the body ended'));
    });
  });
}

async function collect(req: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** The request's headers as `Headers`, without the connection's own. `skip`: one more to leave out. */
export function headersOf(req: ServerRequest, skip?: string): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!name.startsWith(':') && !HOP_BY_HOP.has(name) && name !== skip) headers.append(raw[i], raw[i + 1]);
  }
  return headers;
}

/** A signal that aborts when the client goes away before the answer is complete (or went away already). */
export function clientGone(res: ServerResponse): AbortSignal {
  const aborted = new AbortController();
  const gone = () => {
    if (!res.writableFinished) aborted.abort(new Error('the client closed the connection'));
  };
  if ((res as http.ServerResponse).closed) gone();
  else res.once('close', gone);
  return aborted.signal;
}

/** The request at `url`, its body already read. */
export function requestOf(
  req: ServerRequest,
  url: string,
  body: Buffer | undefined,
  signal: AbortSignal,
  skip?: string,
): Request {
  const method = req.method ?? 'GET';
  return new Request(url, {
    method,
    headers: headersOf(req, skip),
    body: method === 'GET' || method === 'HEAD' ? undefined : (body as unknown as BodyInit),
    signal,
  });
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
  const body = method === 'GET' || method === 'HEAD' ? undefined : await collect(req);
  return requestOf(req, url, body, clientGone(res), skip);
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
  if (!isEventStream(response.headers.get('content-type'))) {
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
      // The client went away (an HTTP/2 client resets its stream): nothing more goes out.
      if (gone(res)) return void reader.cancel().catch(() => {});
      if (!(res as http.ServerResponse).write(value))
        await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (gone(res)) return void reader.cancel().catch(() => {});
    }
    res.end();
  } catch {
    // A stream that fails midway (a disconnect fault): the client sees the connection drop.
    await dropAfterWrites(res);
  }
}

/** Whether the response can no longer reach its client (an HTTP/2 response has no `destroyed`). */
function gone(res: ServerResponse): boolean {
  return 'stream' in res ? res.stream.destroyed || res.stream.closed : res.destroyed;
}

/** Server-sent events, the AWS event stream (Bedrock's ConverseStream) or JSON lines (Ollama): written as they come. */
function isEventStream(type: string | null): boolean {
  return (
    type !== null &&
    (type.includes('text/event-stream') ||
      type.includes('application/vnd.amazon.eventstream') ||
      type.includes('application/x-ndjson'))
  );
}

/**
 * Drops the connection, after what was written before: destroyed at once, a response loses
 * the writes node still holds back. An HTTP/2 response (the environment's socket server, in
 * the host realm, where no fake clock reaches) hands its data frames to the session first.
 */
async function dropAfterWrites(res: ServerResponse): Promise<void> {
  if (gone(res)) return;
  if ('stream' in res) await new Promise<void>((handed) => setImmediate(handed));
  else await new Promise<void>((flushed) => res.write('', () => flushed()));
  res.destroy();
}
