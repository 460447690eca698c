/**
 * The recorder process `record({ out, provider })` starts: an HTTP proxy on 127.0.0.1 that
 * sends every model request to the provider, streams the answer back to the client as it
 * arrives, and keeps a copy. On exit (Ctrl-C, SIGTERM, `POST /__understudy/stop`, after
 * `maxCalls` calls or `idleMs` without a request) it turns the calls into fixtures — keyed,
 * checked for ambiguity and scrubbed as `harness.getRecordedFixtures()` does — and writes
 * them to `out`. Exit code 0 when the file was written, 1 otherwise (the reason goes to
 * stderr and to the parent's result file).
 *
 * Point a client at it the way you point it at a proxy: `OPENAI_BASE_URL=<url>/v1`,
 * `ANTHROPIC_BASE_URL=<url>`, Gemini `httpOptions.baseUrl=<url>`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { matchKeysOf } from '../conversation';
import { credentialsOf, noteSecret, secretsInUse } from '../files/secrets';
import { writeFile } from '../files/write';
import { writeFixtures } from '../fixtures/write';
import type { ProviderCodec } from '../providers/codec';
import type { ProviderDefinition } from '../providers/definition';
import { PROVIDERS } from '../providers/registry';
import { createConversationStore } from '../providers/store';
import { fixturesFromCalls, type RecordedCall } from './build';
import { ciRefusal, isRealKey } from './mode';
import { fingerprintOf } from './prompt-hash';

export interface RecorderOptions {
  /** Where to write the fixtures (resolved against the working directory). */
  out: string;
  /** `openai`, `anthropic`, `gemini`, or an upstream base URL every request goes to. */
  provider?: string;
  port?: number;
  /** Written with the recorder's URL once it listens. */
  urlFile?: string;
  /** Written with `{ ok, message }` when the recorder ends. */
  resultFile?: string;
  maxCalls?: number;
  idleMs?: number;
}

const STOP_PATH = '/__understudy/stop';
const HOP = new Set([
  'host',
  'connection',
  'content-length',
  'accept-encoding',
  'keep-alive',
  'transfer-encoding',
]);

/** Which provider and codec serve a path, and the path below the provider's base URL. */
function routeOf(
  method: string,
  path: string,
): { provider: ProviderDefinition; codec: ProviderCodec; below: string } | undefined {
  for (const provider of PROVIDERS) {
    for (const base of provider.defaultBaseURLs) {
      const prefix = new URL(base).pathname.replace(/\/+$/, '');
      if (prefix && !path.startsWith(`${prefix}/`)) continue;
      const below = path.slice(prefix.length);
      const codec = provider.codecs.find((c) => c.handles(method, below));
      if (codec) return { provider, codec, below };
    }
  }
  return undefined;
}

function upstreamOf(provider: ProviderDefinition, path: string, search: string, option?: string): string {
  if (option && /^https?:\/\//.test(option)) return `${option.replace(/\/+$/, '')}${path}${search}`;
  const origin = new URL(provider.defaultBaseURLs[0]).origin;
  return `${origin}${path}${search}`;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function main(options: RecorderOptions): Promise<number> {
  const finish = (ok: boolean, message: string) => {
    process.stderr.write(`understudy recorder: ${message}\n`);
    if (options.resultFile) writeFile(options.resultFile, JSON.stringify({ ok, message }));
    return ok ? 0 : 1;
  };
  const refusal = ciRefusal('record', 'record()', process.env);
  if (refusal) return finish(false, refusal);
  if (
    options.provider &&
    !/^https?:\/\//.test(options.provider) &&
    !PROVIDERS.some((p) => p.id === options.provider)
  )
    return finish(
      false,
      `provider must be openai, anthropic, gemini or a base URL, not ${JSON.stringify(options.provider)}`,
    );

  const calls: RecordedCall[] = [];
  const store = createConversationStore();
  const pending = new Set<Promise<void>>();
  let index = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let stopping: ((why: string) => void) | undefined;
  const stopped = new Promise<string>((done) => {
    stopping = done;
  });
  const armIdle = () => {
    if (idle) clearTimeout(idle);
    if (options.idleMs)
      idle = setTimeout(() => stopping?.(`no request for ${options.idleMs} ms`), options.idleMs);
  };

  // Every request in flight is awaited before the file is written: a client may read the end
  // of a stream (and ask to stop) before the recorder has read the upstream's end.
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://recorder').pathname === STOP_PATH) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('stopping\n');
      stopping?.('asked to stop');
      return;
    }
    const handled = handle(req, res);
    pending.add(handled);
    void handled.finally(() => pending.delete(handled));
  });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    armIdle();
    const url = new URL(req.url ?? '/', 'http://recorder');
    try {
      const method = req.method ?? 'GET';
      const route = routeOf(method, url.pathname);
      const text = await bodyOf(req);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (!HOP.has(name) && value !== undefined)
          headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      if (!route) {
        res
          .writeHead(404, { 'content-type': 'text/plain' })
          .end(`the recorder does not know ${method} ${url.pathname}\n`);
        return;
      }
      const target = upstreamOf(route.provider, url.pathname, url.search, options.provider);
      for (const key of credentialsOf(headers, target)) if (isRealKey(key)) noteSecret(key);
      const startedAt = performance.now();
      const upstream = await fetch(target, { method, headers, ...(method === 'GET' ? {} : { body: text }) });
      const out: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!HOP.has(name) && name !== 'content-encoding') out[name] = value;
      });
      res.writeHead(upstream.status, out);
      // The client gets each chunk as it arrives; the copy is decoded once the body ends.
      let copy = '';
      const decoder = new TextDecoder();
      if (upstream.body) {
        const reader = upstream.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
          copy += decoder.decode(value, { stream: true });
        }
      }
      copy += decoder.decode();
      const endedAt = performance.now();
      res.end();
      await (async () => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return;
        }
        const decoded = route.codec.decode(body, { path: route.below, query: url.searchParams, store });
        if (!decoded.ok || !route.codec.reply) return;
        const conversation = decoded.conversation;
        const call: RecordedCall = {
          index: index++,
          protocol: route.codec.protocol,
          conversation,
          keys: matchKeysOf(conversation),
          fingerprint: fingerprintOf(conversation),
          startedAt,
          endedAt,
        };
        const status = upstream.status;
        if (status === 401 || status === 403) {
          process.stderr.write(
            `understudy recorder: ${target} answered ${status} (check the key); not recorded\n`,
          );
          return;
        }
        let parsed: unknown = copy;
        try {
          parsed = JSON.parse(copy);
        } catch {
          // SSE or text
        }
        const type = upstream.headers.get('content-type') ?? '';
        const lines = route.codec.reply.lineStream;
        const streamed = type.includes('text/event-stream') || (lines !== undefined && type.includes(lines));
        const result =
          status >= 400
            ? { ok: false as const, error: route.codec.reply.decodeError(status, parsed) }
            : streamed
              ? route.codec.reply.decodeStream(copy)
              : route.codec.reply.decodeReply(parsed);
        if (!result.ok) call.error = result.error;
        else if (!result.complete) {
          process.stderr.write(
            `understudy recorder: a ${route.codec.protocol} stream ended early; not recorded\n`,
          );
          return;
        } else {
          call.reply = result.reply.model ? result.reply : { ...result.reply, model: conversation.model };
          if (result.raw !== undefined) route.codec.reply.remember?.(result.raw, conversation, store);
        }
        calls.push(call);
        process.stderr.write(`understudy recorder: recorded ${route.codec.protocol} call #${call.index}\n`);
        if (options.maxCalls && calls.length >= options.maxCalls)
          stopping?.(`recorded ${calls.length} calls`);
      })();
    } catch (error) {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`the recorder could not reach the provider: ${(error as Error).message}\n`);
    }
  };

  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', ready);
  });
  const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.stderr.write(
    `understudy recorder: listening on ${address} — point your client there ` +
      `(OPENAI_BASE_URL=${address}/v1, ANTHROPIC_BASE_URL=${address}); Ctrl-C writes ${options.out}\n`,
  );
  // Whole or not at all: a script waiting for the file reads it as soon as it exists.
  if (options.urlFile) writeFile(options.urlFile, address, { atomic: true });
  armIdle();
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => stopping?.(`got ${signal}`));

  const why = await stopped;
  if (idle) clearTimeout(idle);
  while (pending.size > 0) await Promise.allSettled([...pending]);
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
  if (calls.length === 0)
    return finish(false, `stopped (${why}) with no model call recorded; nothing written`);
  try {
    const fixtures = fixturesFromCalls(calls, { where: 'record()', secrets: secretsInUse() });
    const file = writeFixtures(resolve(process.cwd(), options.out), fixtures);
    return finish(
      true,
      `stopped (${why}); wrote ${fixtures.length} fixtures from ${calls.length} calls to ${file}`,
    );
  } catch (error) {
    return finish(false, `stopped (${why}); could not write ${options.out}: ${(error as Error).message}`);
  }
}

if (require.main === module) {
  let options: RecorderOptions;
  try {
    options = JSON.parse(process.argv[2] ?? '');
  } catch {
    process.stderr.write('understudy recorder: expected the options as JSON in the first argument\n');
    process.exit(2);
  }
  main(options).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`understudy recorder: ${(error as Error)?.stack ?? error}\n`);
      if (options.resultFile)
        writeFile(options.resultFile, JSON.stringify({ ok: false, message: String(error) }));
      process.exit(1);
    },
  );
}
