/**
 * What the served port answers (`understudy.serve()`), as one function of the request as it
 * arrived (./serve-port.ts reads it off node:http): a model call goes to the file's model as
 * it is, without a WHATWG Request, and its answer comes back in wire form; the world's routes
 * get a Request. Paths below the port's origin:
 *
 *   [/run/<token>]/openai/…   /anthropic/…   /gemini/…   the providers, at their real URLs
 *   [/run/<token>]/world/<package>/…                    a package's HTTP routes
 *   [/run/<token>]/mcp/<package>                        a package's MCP endpoint (Streamable HTTP)
 *   [/run/<token>]/tools/<package>/<operation>          one operation by name (`understudy tool call`)
 *
 * A child process has no async context, so the run its calls belong to is named by the token
 * in the path (a run's; a test's for the URLs read in a test outside its runs); a call without a
 * run's token belongs to the only active run, as an in-process call made outside every run's
 * context does. Nothing that arrives here is let go quietly: a path nothing serves fails the
 * test, and the token of a run or test that has ended fails that test while it runs, else the
 * file (never the test running then), whatever the child made of the answer. A run that crashed
 * gets what it gets in process: headers, and a body that never ends (./requests.ts).
 */
import type { ErrorCode } from '../errors';
import { noteCredentials } from '../files/secrets';
import type { FileContext } from '../run/context';
import type { WireAnswer } from './wire';

/**
 * The providers the served port offers, by path segment: their real origin, the SDK base URL below
 * it, and the version segment every path of the API starts with when clients disagree on whether
 * the base URL holds it. Anthropic's SDK reads ANTHROPIC_BASE_URL without it (and adds
 * /v1/messages), the AI SDK's provider and Mastra's router with it (and add /messages): one served
 * base answers both.
 */
export const SERVED_PROVIDERS: Readonly<
  Record<'openai' | 'anthropic' | 'gemini' | 'ollama', { origin: string; base: string; version?: string }>
> = {
  openai: { origin: 'https://api.openai.com', base: '/v1' },
  anthropic: { origin: 'https://api.anthropic.com', base: '', version: '/v1' },
  gemini: { origin: 'https://generativelanguage.googleapis.com', base: '' },
  // Ollama's root: its native API (/api/chat) and its /v1 API below it, served where providers.ollama is on.
  ollama: { origin: 'http://127.0.0.1:11434', base: '' },
};

export type ServedProvider = keyof typeof SERVED_PROVIDERS;

/** The provider's real URL a model request to the served port stands for (`path`: below the provider's segment). */
export function servedModelUrl(provider: ServedProvider, path: string, search: string): string {
  const { origin, version } = SERVED_PROVIDERS[provider];
  const versioned = !version || path === version || path.startsWith(`${version}/`);
  return `${origin}${versioned ? '' : version}${path}${search}`;
}

/** A request that arrived at the served port, read only as far as what answers it needs. */
export interface ServedRequest {
  readonly method: string;
  /** Path and query below the port's origin. */
  readonly path: string;
  header(name: string): string | null;
  headers(): Headers;
  /** Visits each header, as `Headers.forEach` does, without building a `Headers`. */
  eachHeader(visit: (value: string, name: string) => void): void;
  readBody(): Promise<string>;
  /** Aborts when the client goes away before the answer is complete. */
  readonly signal: AbortSignal;
  /** The request as a WHATWG Request at `url` (its body read). */
  toRequest(url?: string): Promise<Request>;
}

/** What answers the port's requests: the file's request answering (./requests.ts) and its context. */
export interface ServedDeps {
  readonly context: FileContext;
  /** Serves a provider request as if it had been made to `url` (a provider's real URL). */
  serveModel(request: ServedRequest, url: string): Promise<WireAnswer | undefined> | undefined;
  /** Serves a request of the world's (its HTTP routes, MCP, a tool by name) through the carrier's crash gate. */
  serveWorld(serve: () => Promise<WireAnswer | undefined>): Promise<WireAnswer | undefined> | undefined;
}

function refused(deps: ServedDeps, code: ErrorCode, status: number, message: string): WireAnswer {
  deps.context.fail(code, message);
  return plainRefusal(code, status, message);
}

function plainRefusal(code: ErrorCode, status: number, message: string): WireAnswer {
  return {
    kind: 'plain',
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: { code, message, retryable: false, status } }),
  };
}

/** A Response of the world's (undefined: nothing there serves the request). */
function fromWorld(response: Response | undefined): WireAnswer | undefined {
  return response && { kind: 'response', response };
}

const PACKAGES_HINT =
  'The served port answers [/run/<token>]/openai/…, /anthropic/…, /gemini/…, /ollama/… (with providers.ollama on), /world/<package>/…, /mcp/<package> and /tools/<package>/<operation>; take the URLs from served.urls or served.env.';

/** Characters a URL parser leaves as they are in a path and query; anything else goes through one. */
const PLAIN_PATH = /^\/[\w\-.~!$&()*+,;=:@/?]*$/;

/** The path and query, as a URL on the port's origin has them (dot segments resolved). */
export function splitPath(raw: string): { path: string; search: string } {
  if (PLAIN_PATH.test(raw) && !raw.includes('/.')) {
    const query = raw.indexOf('?');
    if (query < 0) return { path: raw, search: '' };
    // A lone `?` is no query.
    return { path: raw.slice(0, query), search: query === raw.length - 1 ? '' : raw.slice(query) };
  }
  const url = new URL(`http://127.0.0.1${raw}`);
  return { path: url.pathname, search: url.search };
}

/** Answers one request that arrived at the served port. */
export function answerServed(deps: ServedDeps, request: ServedRequest): Promise<WireAnswer> {
  const { path, search } = splitPath(request.path);
  const token = /^\/run\/([^/]+)(\/.*)?$/.exec(path);
  const { runs } = deps.context;
  if (!token) return runs.outside(() => route(deps, request, path, search));
  const run = runs.ofToken(decodeURIComponent(token[1]));
  const what = `${request.method} ${path}`;
  if (run.state === 'ended') {
    // It fails the test it came from while that test runs, else the file: never the test running now.
    const message =
      run.of === 'run'
        ? `jest-understudy: ${what} arrived over the served port for a run that has already ended (a run of ${run.owner.label}), so it belongs to no run and nothing checks it. A child process outlived the understudy.run() that started it: wait for it to exit inside the agent function.`
        : `jest-understudy: ${what} arrived over the served port with the token of ${run.owner.label}, which has already ended, so it belongs to no run and nothing checks it. A child process outlived the test that started it: wait for it to exit (or stop it) before the test ends.`;
    runs.failLate(run.owner, message);
    return Promise.resolve(plainRefusal('RUN_ENDED', 410, message));
  }
  // A test's token, while the test runs: as a call without a token, which it is but for its owner.
  if (run.state === 'test') return runs.outside(() => route(deps, request, token[2] ?? '/', search));
  if (run.state !== 'active')
    return Promise.resolve(
      refused(
        deps,
        'SERVED_UNROUTED',
        404,
        `jest-understudy: ${what} arrived over the served port with run token ${JSON.stringify(token[1])}, which this test file never issued. ${PACKAGES_HINT}`,
      ),
    );
  return runs.within(run.recorder, () => route(deps, request, token[2] ?? '/', search));
}

async function route(
  deps: ServedDeps,
  request: ServedRequest,
  path: string,
  search: string,
): Promise<WireAnswer> {
  const [, first = '', second = '', ...more] = path.split('/');
  /** The path after its first `n` segments (from the slash that ends them). */
  const rest = (n: number) => {
    let at = 0;
    for (let i = 0; i < n && at !== -1; i++) at = path.indexOf('/', at + 1);
    return at === -1 ? '' : path.slice(at);
  };
  let answer: Promise<WireAnswer | undefined> | WireAnswer | undefined;
  const { world } = deps.context;
  const model = Object.hasOwn(SERVED_PROVIDERS, first);
  // A model request's credentials are noted where it is served; a tool call's here.
  if (!model)
    noteCredentials({ forEach: (visit) => request.eachHeader(visit) }, `http://served${path}${search}`);
  if (model) {
    answer = deps.serveModel(request, servedModelUrl(first as ServedProvider, rest(1), search));
  } else if (first === 'world' && second !== '') {
    const id = decodeURIComponent(second);
    const at = `${rest(2)}${search}`;
    answer = deps.serveWorld(() =>
      request.toRequest().then((r) => world.servedHttp(id, at, r)?.then(fromWorld)),
    );
  } else if (first === 'mcp' && second !== '' && more.length === 0) {
    const id = decodeURIComponent(second);
    answer = deps.serveWorld(() => request.toRequest().then((r) => world.servedMcp(id, r)?.then(fromWorld)));
  } else if (first === 'tools' && second !== '' && more.length === 1 && request.method === 'POST') {
    answer = deps.serveWorld(() =>
      servedCall(deps, decodeURIComponent(second), decodeURIComponent(more[0]), request),
    );
  }
  return (
    (await answer) ??
    refused(
      deps,
      'SERVED_UNROUTED',
      404,
      `jest-understudy: ${request.method} ${path} arrived over the served port, and nothing there serves it${servedHint(deps, first, second)}. ${PACKAGES_HINT}`,
    )
  );
}

/** Which packages there are, when the path named one the world does not serve that way. */
function servedHint(deps: ServedDeps, first: string, second: string): string {
  if (first !== 'world' && first !== 'mcp' && first !== 'tools') return '';
  const { world } = deps.context;
  if (!world.loaded) return ' (no world is loaded for this test file)';
  const { http, mcp } = world.servedPackages();
  const list = (ids: string[]) => (ids.length > 0 ? ids.map((id) => JSON.stringify(id)).join(', ') : 'none');
  if (first === 'world')
    return ` (package ${JSON.stringify(second)} has no HTTP routes; packages with them: ${list(http)})`;
  if (first === 'mcp')
    return ` (package ${JSON.stringify(second)} has no mcp binding; packages with it: ${list(mcp)})`;
  return ' (a tool call is POST /tools/<package>/<operation>)';
}

async function servedCall(
  deps: ServedDeps,
  packageId: string,
  operationId: string,
  request: ServedRequest,
): Promise<WireAnswer> {
  let body: unknown;
  try {
    const text = await request.readBody();
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return refused(
      deps,
      'BAD_ARGUMENT',
      400,
      `POST /tools/${packageId}/${operationId}: the body must be a JSON object { input, actorId?, idempotencyKey? }`,
    );
  const { input, actorId, idempotencyKey } = body as Record<string, unknown>;
  if (actorId !== undefined && (typeof actorId !== 'string' || actorId === ''))
    return refused(
      deps,
      'BAD_ARGUMENT',
      400,
      `POST /tools/${packageId}/${operationId}: actorId must be a non-empty string`,
    );
  if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || idempotencyKey === ''))
    return refused(
      deps,
      'BAD_ARGUMENT',
      400,
      `POST /tools/${packageId}/${operationId}: idempotencyKey must be a non-empty string`,
    );
  const response = await deps.context.world.servedCall(
    packageId,
    operationId,
    {
      input,
      ...(actorId !== undefined && { actorId: actorId as string }),
      ...(idempotencyKey !== undefined && { idempotencyKey: idempotencyKey as string }),
    },
    request.signal,
  );
  return { kind: 'response', response };
}
