/**
 * One `understudy.browser.route` routing as its parts see it: what answers its requests, the test
 * it belongs to, and how it fails a test.
 */
import type { ErrorCode } from '../errors';
import type { SocketAcceptance, SocketOffer } from '../sockets/carrier';

/** How the refusal message names the transport: Chromium, driven by Playwright. */
export const TRANSPORT = 'browser';

/** Whom a routing's requests belong to: the test it was made in (while it runs), else the file. */
export interface RoutingOwner {
  readonly test: string | undefined;
  readonly ended: boolean;
}

/** What answers a routed context's requests: the file's own request answering (src/sandbox/requests.ts). */
export interface BrowserRequests {
  /** A provider, world or own-handler answer; undefined when nothing of the file answers it. */
  handleRequest(request: Request): Promise<Response | undefined> | undefined;
  /** Whether the file serves this origin (provider and world hosts). */
  serves(origin: string): boolean;
}

/** The test file a routing belongs to (its context, src/run/context.ts): whom requests belong to, how they fail. */
export interface BrowserFile {
  /** The policy's refusal message for a request nothing answered, or undefined when it passes. */
  refusal(method: string, url: string, transport: string): string | undefined;
  /** Fails the test running now (or the file, outside tests). */
  fail(code: ErrorCode, message: string): void;
  /** The test running now, else the file. */
  owner(): RoutingOwner;
  /** Fails `owner`'s test while it runs, else the file. */
  failOwner(owner: RoutingOwner, code: ErrorCode, message: string): void;
}

/** What a routing reaches: what answers its requests, and the file it belongs to. */
export interface BrowserDeps {
  readonly requests: BrowserRequests;
  readonly file: BrowserFile;
  /** The file's WebSockets to served hosts (src/sandbox/sockets.ts): the protocol that serves one. */
  readonly sockets?: { accept(offer: SocketOffer): SocketAcceptance | undefined };
}

/** One routing: what it needs of the file (its deps), the test it belongs to, and how it fails a test. */
export interface Routing {
  readonly deps: BrowserDeps;
  readonly owner: RoutingOwner;
  /** Fails the routing's test while it runs (the test running, for a routing made outside tests), else the file. */
  fail(code: ErrorCode, message: string): void;
  /** A request (`what`) that arrived after the routing's test ended: fails the file. */
  late(what: string): void;
  /** Set by `unroute()`: what cannot be taken off (WebSocket routes) passes from then on. */
  removed: boolean;
}

export function routingOf(deps: BrowserDeps): Routing {
  const { file } = deps;
  const owner = file.owner();
  return {
    deps,
    owner,
    fail: (code, message) =>
      owner.test === undefined ? file.fail(code, message) : file.failOwner(owner, code, message),
    late(what) {
      file.failOwner(
        owner,
        'RUN_ENDED',
        `jest-understudy: ${what} came from a browser context routed in the test "${owner.test}", after that test had ended, so it belongs to no run and nothing checks it; it was refused. Close the test's pages and contexts before it ends (afterEach), or route the context again in the test that uses it.`,
      );
    },
    removed: false,
  };
}
