/**
 * The test's own msw request handlers: `understudy.http.use(...)` (in a test: until it ends;
 * outside one: for the file), the servers of an existing `setupServer(...).listen()` setup
 * (see ./msw-node.ts), and the `handlers` option (every file). They answer what reaches the
 * network layer after provider and world hosts, before the network policy.
 *
 * The handlers were made in the test realm with the user's own msw (2 or 3); the environment's
 * msw runs on the host. Both majors give every request handler the same `run()` that msw's
 * own lookup (`executeHandlers`) calls, so this resolves requests as msw does, whichever copy
 * made the handler: the first handler with a response answers; a handler that matched without
 * one, or answered `passthrough()`, leaves the request to the network policy (never to the
 * network); nothing matched, the same.
 */
import { UnderstudyError } from '../errors';
import type { FileContext } from '../run/context';
import type { HttpExchange } from '../run/types';

/** An msw request handler (`http.get(…)`, `graphql.query(…)`, `sse(…)`), of msw 2 or 3. */
export interface HttpRequestHandler {
  // msw's own argument type differs between its majors.
  run(args: any): Promise<unknown>;
}

interface Handler {
  run(args: { request: Request; requestId: string; resolutionContext?: object }): Promise<{
    response?: Response;
  } | null>;
  info?: { header?: unknown };
  isUsed?: boolean;
  restore?: () => void;
  options?: { once?: boolean };
}

/** Where a handler came from, as the evidence names it. */
export type HandlerSource = 'understudy.http.use' | 'setupServer' | 'the handlers option';

/** The handlers of one `setupServer(...)` while it listens. */
export interface HandlerGroup {
  current(): readonly HttpRequestHandler[];
  /** msw's life-cycle events (`server.events`). */
  emit(type: string, data: Record<string, unknown>): void;
}

/** `understudy.http`. */
export interface UnderstudyHttp {
  /**
   * Adds msw request handlers (made with your own `import { http, HttpResponse } from 'msw'`), first
   * in line: in a test until it ends (as `server.use` with `resetHandlers` after each test), outside
   * one for the rest of the file.
   */
  use(...handlers: HttpRequestHandler[]): void;
}

const INTENTION = 'x-msw-intention';

export class UserHandlers {
  private testHandlers: Handler[] = [];
  private fileHandlers: Handler[] = [];
  private readonly groups = new Set<HandlerGroup>();
  private configured: Handler[] = [];
  private requests = 0;

  readonly api: UnderstudyHttp = {
    use: (...handlers) => {
      const checked = checkHandlers(handlers, 'understudy.http.use(...)');
      if (this.context.inTest) this.testHandlers = prepend(checked, this.testHandlers);
      else this.fileHandlers = prepend(checked, this.fileHandlers);
    },
  };

  constructor(private readonly context: FileContext) {}

  /** The `handlers` option: the array the module exports. */
  configure(handlers: readonly unknown[], where: string): void {
    this.configured = checkHandlers(handlers, where);
  }

  listen(group: HandlerGroup): void {
    this.groups.add(group);
  }

  close(group: HandlerGroup): void {
    this.groups.delete(group);
  }

  testFinished(): void {
    this.testHandlers = [];
  }

  /** Whether no handler is in place (nothing to ask). */
  get empty(): boolean {
    return (
      this.testHandlers.length === 0 &&
      this.fileHandlers.length === 0 &&
      this.groups.size === 0 &&
      this.configured.length === 0
    );
  }

  /** Answers a request one of the handlers has a response for; undefined leaves it to the network policy. */
  handle(request: Request): Promise<Response | undefined> | undefined {
    return this.empty ? undefined : this.resolve(request);
  }

  private async resolve(request: Request): Promise<Response | undefined> {
    const entries: Array<{ handler: Handler; source: HandlerSource; group?: HandlerGroup }> = [
      ...this.testHandlers.map((handler) => ({ handler, source: 'understudy.http.use' as const })),
      ...this.fileHandlers.map((handler) => ({ handler, source: 'understudy.http.use' as const })),
      ...[...this.groups].flatMap((group) =>
        (group.current() as Handler[]).map((handler) => ({ handler, source: 'setupServer' as const, group })),
      ),
      ...this.configured.map((handler) => ({ handler, source: 'the handlers option' as const })),
    ];
    const requestId = `jest-understudy-${++this.requests}`;
    const emit = (type: string, data: Record<string, unknown> = {}, only?: HandlerGroup) => {
      for (const group of this.groups)
        if (!only || only === group) group.emit(type, { type, request, requestId, ...data });
    };
    emit('request:start');
    const startedAt = performance.now();
    let matched: (typeof entries)[number] | undefined;
    let response: Response | undefined;
    for (const entry of entries) {
      let result: Awaited<ReturnType<Handler['run']>>;
      try {
        result = await entry.handler.run({ request, requestId, resolutionContext: {} });
      } catch (error) {
        const what = `${request.method} ${request.url}`;
        this.context.fail(
          'HTTP_HANDLER_FAILED',
          `jest-understudy: the msw handler ${nameOf(entry.handler)} (${entry.source}) threw while answering ${what}: ` +
            `${(error as Error)?.stack ?? error}\n  The request failed like a network error. To answer with an error, return an HttpResponse with its status.`,
        );
        emit('unhandledException', { error }, entry.group);
        emit('request:end');
        return Response.error();
      }
      if (result) matched = entry;
      if (result?.response) {
        response = result.response;
        break;
      }
    }
    if (!matched) emit('request:unhandled');
    else emit('request:match', { handler: matched.handler }, matched.group);
    emit('request:end');
    // Matched without a response, or `passthrough()`: as msw would perform it, the network policy decides.
    if (
      !matched ||
      !response ||
      (response.status === 302 && response.headers.get(INTENTION) === 'passthrough')
    )
      return undefined;
    this.note({
      method: request.method,
      url: request.url,
      status: response.type === 'error' ? 0 : response.status,
      ...(nameOf(matched.handler) !== undefined && { handler: nameOf(matched.handler) }),
      source: matched.source,
      startedAt,
      durationMs: performance.now() - startedAt,
    });
    if (matched.group) emit('response:mocked', { response: response.clone() }, matched.group);
    return response;
  }

  private note(exchange: HttpExchange): void {
    const run = this.context.runs.attribute(
      () => `an HTTP request (${exchange.method} ${exchange.url}) one of the test's msw handlers answered`,
    );
    run?.http?.push(exchange);
    this.context.evidence.noteHttp(exchange);
  }
}

/** msw 2.12 and 3 put back `once` handlers through `restore()`; older 2.x only had `isUsed`. */
export function restoreHandler(handler: HttpRequestHandler): void {
  const h = handler as Handler;
  if (typeof h.restore === 'function') h.restore();
  else if ('isUsed' in h) h.isUsed = false;
}

function nameOf(handler: Handler): string | undefined {
  const header = handler.info?.header;
  return typeof header === 'string' ? header : undefined;
}

/** Newer first; a handler given again moves to the front, as msw's `use` does. */
export function prepend<T>(added: readonly T[], existing: readonly T[]): T[] {
  return [...added, ...existing.filter((h) => !added.includes(h))];
}

const kindOf = (value: object): unknown => (value as { kind?: unknown }).kind;
const legacyKindOf = (value: object): unknown => (value as { __kind?: unknown }).__kind;

/**
 * The arguments as msw request handlers, or an error at the call that gave them: an array not
 * spread, a WebSocket handler (jest-understudy serves no WebSocket), anything else.
 */
export function checkHandlers(list: readonly unknown[], where: string): Handler[] {
  return list.map((value, i) => {
    const at = `${where}: argument ${i + 1}`;
    if (Array.isArray(value))
      throw invalid(
        `${at} is an array of ${value.length} handler(s); spread it: ${where.replace('(...)', '(...handlers)')}`,
      );
    if (typeof value === 'object' && value !== null) {
      const link = ['addEventListener', 'broadcast'].every(
        (key) => typeof (value as Record<string, unknown>)[key] === 'function',
      );
      if (link || kindOf(value) === 'websocket' || legacyKindOf(value) === 'EventHandler')
        throw invalid(
          `${at} is an msw WebSocket handler (ws.link(…)); jest-understudy does not serve WebSocket. ` +
            "Start a WebSocket server on loopback in the test instead (the ws package's WebSocketServer): " +
            'connections to a server of the test process pass through.',
        );
      if (
        typeof (value as Handler).run === 'function' &&
        (kindOf(value) === 'request' || legacyKindOf(value) === 'RequestHandler')
      )
        return value as Handler;
    }
    throw invalid(
      `${at} is not an msw request handler (got ${describe(value)}); make one with msw's http.get(url, resolver), graphql.query(…) or sse(…)`,
    );
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object')
    return `an object with keys ${Object.keys(value).slice(0, 5).join(', ') || '(none)'}`;
  return String(value);
}

const invalid = (message: string) =>
  new UnderstudyError('HTTP_HANDLER_INVALID', `jest-understudy: ${message}`);

/** Reads the `handlers` option's module: its export (module.exports, `handlers` or `default`) must be an array. */
export function loadHandlersModule(path: string): { handlers: unknown[]; where: string } {
  const where = `the handlers option (testEnvironmentOptions.understudy.handlers: ${path})`;
  let mod: unknown;
  try {
    mod = require(path);
  } catch (error) {
    throw new UnderstudyError(
      'OPTIONS_INVALID',
      `jest-understudy: ${where} could not be loaded: ${(error as Error)?.message ?? error}`,
      { cause: error },
    );
  }
  const exported = mod as { handlers?: unknown; default?: unknown } | undefined;
  const handlers = Array.isArray(mod)
    ? mod
    : Array.isArray(exported?.handlers)
      ? exported.handlers
      : Array.isArray(exported?.default)
        ? exported.default
        : undefined;
  if (!handlers)
    throw new UnderstudyError(
      'OPTIONS_INVALID',
      `jest-understudy: ${where} must export an array of msw request handlers (module.exports = [...], ` +
        `export const handlers = [...] or export default [...]); it exports ${describe(mod)}`,
    );
  return { handlers, where };
}
