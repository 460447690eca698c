/**
 * `understudy.serve()`: the file's model and world on a loopback port, for agents in another
 * process. The URLs (and the environment a child is started with) carry the token of the run
 * they are read in (else of the test), so a child started inside `understudy.run()` has its calls
 * credited to that run even while other runs go on, and a call that comes after its run or test
 * ended is told apart.
 */
import { UnderstudyError } from '../errors';
import { listenServed, type ServedPort } from './serve-port';
import { answerServed, SERVED_PROVIDERS, type ServedDeps } from './served';
import { serveSocket } from './served-sockets';
import type { FileSockets } from './sockets';

/** Placeholder keys: the SDKs refuse to start without one, and nothing checks it. */
const PLACEHOLDER_KEY = 'understudy-placeholder-key';

export interface ServedUrls {
  /** The port's base for this run or test (`http://127.0.0.1:<port>[/run/<token>]`). */
  readonly base: string;
  /** OpenAI's base URL (…/openai/v1), for `OPENAI_BASE_URL` / `baseURL`. */
  readonly openai: string;
  /** Anthropic's (…/anthropic), for `ANTHROPIC_BASE_URL`. */
  readonly anthropic: string;
  /** Gemini's (…/gemini), for `GOOGLE_GEMINI_BASE_URL` / `httpOptions.baseUrl`. */
  readonly gemini: string;
  /**
   * Ollama's server root (…/ollama), for `OLLAMA_HOST` / the `ollama` client's `host` (its `/v1`
   * below it); served when the file turns `providers.ollama` on.
   */
  readonly ollama: string;
  /** Each package's HTTP base (its routes below it), by package id. */
  readonly world: Readonly<Record<string, string>>;
  /** Each package's MCP endpoint (Streamable HTTP), by package id. */
  readonly mcp: Readonly<Record<string, string>>;
}

export interface Served {
  /** The URLs; read inside `understudy.run()` they carry the run's token, read in a test the test's. */
  readonly urls: ServedUrls;
  /**
   * What a child process needs, as variables: OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
   * GOOGLE_GEMINI_BASE_URL, OLLAMA_HOST, placeholder keys and UNDERSTUDY_SERVE_URL. Pass it with the parent's
   * environment: `spawn(cmd, args, { env: { ...process.env, ...served.env } })`.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Stops the port (it also stops when the test file ends). */
  close(): Promise<void>;
}

export async function startServing(
  deps: ServedDeps,
  onClose: () => void,
  sockets?: () => FileSockets,
): Promise<Served> {
  let port: ServedPort;
  try {
    port = await listenServed(
      (request) => answerServed(deps, request),
      (message) => deps.context.fail('SERVE_FAILED', message),
      sockets && ((...args) => serveSocket({ context: deps.context, sockets }, ...args)),
    );
  } catch (error) {
    throw new UnderstudyError(
      'SERVE_FAILED',
      `understudy.serve(): could not listen on 127.0.0.1: ${(error as Error).message}`,
    );
  }
  let closed: Promise<void> | undefined;
  const urls = (): ServedUrls => {
    // A child of a concurrent test would be served as the file's: its calls could not be told apart.
    const { context } = deps;
    context.refuseConcurrent('read the served URLs (served.urls, served.env)');
    const token = context.runs.currentToken();
    const base = token ? `${port.origin}/run/${token}` : port.origin;
    const { http, mcp } = context.world.servedPackages();
    const at = (prefix: string, ids: string[]) =>
      Object.fromEntries(ids.map((id) => [id, `${base}/${prefix}/${encodeURIComponent(id)}`]));
    return {
      base,
      openai: `${base}/openai${SERVED_PROVIDERS.openai.base}`,
      anthropic: `${base}/anthropic${SERVED_PROVIDERS.anthropic.base}`,
      gemini: `${base}/gemini${SERVED_PROVIDERS.gemini.base}`,
      ollama: `${base}/ollama${SERVED_PROVIDERS.ollama.base}`,
      world: at('world', http),
      mcp: at('mcp', mcp),
    };
  };
  return {
    get urls() {
      return urls();
    },
    get env() {
      const u = urls();
      return {
        OPENAI_BASE_URL: u.openai,
        OPENAI_API_KEY: PLACEHOLDER_KEY,
        ANTHROPIC_BASE_URL: u.anthropic,
        ANTHROPIC_API_KEY: PLACEHOLDER_KEY,
        GOOGLE_GEMINI_BASE_URL: u.gemini,
        GEMINI_API_KEY: PLACEHOLDER_KEY,
        GOOGLE_API_KEY: PLACEHOLDER_KEY,
        OLLAMA_HOST: u.ollama,
        UNDERSTUDY_SERVE_URL: u.base,
      };
    },
    close() {
      closed ??= port.close().then(onClose);
      return closed;
    },
  };
}
