/**
 * What the served port answers (`understudy.serve()`), as one function of a WHATWG Request, so
 * any transport that hands over a Request (the loopback server of ./serve-port.ts, a browser
 * route) reaches the file's model and world the same way. Paths below the port's origin:
 *
 *   [/run/<token>]/openai/…   /anthropic/…   /gemini/…   the providers, at their real URLs
 *   [/run/<token>]/world/<package>/…                    a package's HTTP routes
 *   [/run/<token>]/mcp/<package>                        a package's MCP endpoint (Streamable HTTP)
 *   [/run/<token>]/tools/<package>/<operation>          one operation by name (`understudy tool call`)
 *
 * A child process has no async context, so the run its calls belong to is named by the token
 * in the path; a call without one belongs to the only active run, as an in-process call made
 * outside every run's context does. Nothing that arrives here is let go quietly: a path nothing
 * serves, a token of a run that has ended, fail the test, whatever the child made of the answer.
 */
import type { ErrorCode } from '../errors';
import type { RunRecorder } from '../run/host';
import type { RunScope } from '../run/scope';
import type { WorldHost } from '../world/host';

/** The providers the served port offers, by path segment: their real origin, and the SDK base URL below it. */
export const SERVED_PROVIDERS = {
  openai: { origin: 'https://api.openai.com', base: '/v1' },
  anthropic: { origin: 'https://api.anthropic.com', base: '' },
  gemini: { origin: 'https://generativelanguage.googleapis.com', base: '' },
} as const;

export type ServedProvider = keyof typeof SERVED_PROVIDERS;

export interface ServedHost {
  readonly world: WorldHost;
  readonly runs: RunScope<RunRecorder>;
  /** Serves a provider request as if it had been made to `url` (a provider's real URL). */
  handleRequest(request: Request, url: string): Promise<Response | undefined> | undefined;
  fail(code: ErrorCode, message: string): void;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function refused(host: ServedHost, code: ErrorCode, status: number, message: string): Response {
  host.fail(code, message);
  return json(status, { error: { code, message, retryable: false, status } });
}

const PACKAGES_HINT =
  'The served port answers [/run/<token>]/openai/…, /anthropic/…, /gemini/…, /world/<package>/…, /mcp/<package> and /tools/<package>/<operation>; take the URLs from served.urls or served.env.';

/** Answers one request that arrived at the served port (`request.url` is on the port's origin). */
export function answerServed(host: ServedHost, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname;
  const token = /^\/run\/([^/]+)(\/.*)?$/.exec(path);
  if (!token) return host.runs.outside(() => route(host, request, path, url.search));
  const run = host.runs.ofToken(decodeURIComponent(token[1]));
  const what = `${request.method} ${path}`;
  if (run.state === 'ended')
    return Promise.resolve(
      refused(
        host,
        'RUN_ENDED',
        410,
        `jest-understudy: ${what} arrived over the served port for a run that has already ended, so it belongs to no run and nothing checks it. A child process outlived the understudy.run() that started it: wait for it to exit inside the agent function.`,
      ),
    );
  if (run.state !== 'active')
    return Promise.resolve(
      refused(
        host,
        'SERVED_UNROUTED',
        404,
        `jest-understudy: ${what} arrived over the served port with run token ${JSON.stringify(token[1])}, which this test file never issued. ${PACKAGES_HINT}`,
      ),
    );
  return host.runs.within(run.recorder, () => route(host, request, token[2] ?? '/', url.search));
}

async function route(host: ServedHost, request: Request, path: string, search: string): Promise<Response> {
  const [, first = '', second = '', ...more] = path.split('/');
  const rest = (n: number) => {
    const parts = path.split('/').slice(n + 1);
    return parts.length > 0 ? `/${parts.join('/')}` : '';
  };
  let answer: Promise<Response | undefined> | undefined;
  if (Object.hasOwn(SERVED_PROVIDERS, first)) {
    const { origin } = SERVED_PROVIDERS[first as ServedProvider];
    answer = host.handleRequest(request, `${origin}${rest(1)}${search}`);
  } else if (first === 'world' && second !== '') {
    answer = host.world.servedHttp(decodeURIComponent(second), `${rest(2)}${search}`, request);
  } else if (first === 'mcp' && second !== '' && more.length === 0) {
    answer = host.world.servedMcp(decodeURIComponent(second), request);
  } else if (first === 'tools' && second !== '' && more.length === 1 && request.method === 'POST') {
    answer = servedCall(host, decodeURIComponent(second), decodeURIComponent(more[0]), request);
  }
  return (
    (await answer) ??
    refused(
      host,
      'SERVED_UNROUTED',
      404,
      `jest-understudy: ${request.method} ${path} arrived over the served port, and nothing there serves it${servedHint(host, first, second)}. ${PACKAGES_HINT}`,
    )
  );
}

/** Which packages there are, when the path named one the world does not serve that way. */
function servedHint(host: ServedHost, first: string, second: string): string {
  if (first !== 'world' && first !== 'mcp' && first !== 'tools') return '';
  if (!host.world.loaded) return ' (no world is loaded for this test file)';
  const { http, mcp } = host.world.servedPackages();
  const list = (ids: string[]) => (ids.length > 0 ? ids.map((id) => JSON.stringify(id)).join(', ') : 'none');
  if (first === 'world')
    return ` (package ${JSON.stringify(second)} has no HTTP routes; packages with them: ${list(http)})`;
  if (first === 'mcp')
    return ` (package ${JSON.stringify(second)} has no mcp binding; packages with it: ${list(mcp)})`;
  return ' (a tool call is POST /tools/<package>/<operation>)';
}

async function servedCall(
  host: ServedHost,
  packageId: string,
  operationId: string,
  request: Request,
): Promise<Response> {
  let body: unknown;
  try {
    const text = await request.text();
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return refused(
      host,
      'BAD_ARGUMENT',
      400,
      `POST /tools/${packageId}/${operationId}: the body must be a JSON object { input, actorId?, idempotencyKey? }`,
    );
  const { input, actorId, idempotencyKey } = body as Record<string, unknown>;
  if (actorId !== undefined && (typeof actorId !== 'string' || actorId === ''))
    return refused(
      host,
      'BAD_ARGUMENT',
      400,
      `POST /tools/${packageId}/${operationId}: actorId must be a non-empty string`,
    );
  if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || idempotencyKey === ''))
    return refused(
      host,
      'BAD_ARGUMENT',
      400,
      `POST /tools/${packageId}/${operationId}: idempotencyKey must be a non-empty string`,
    );
  return host.world.servedCall(
    packageId,
    operationId,
    {
      input,
      ...(actorId !== undefined && { actorId: actorId as string }),
      ...(idempotencyKey !== undefined && { idempotencyKey: idempotencyKey as string }),
    },
    request.signal,
  );
}
