/**
 * What `msw/node` is in a test file under the preset (its `moduleNameMapper` points there): an
 * existing suite's `setupServer(...handlers).listen()` keeps working unchanged, without a second
 * msw patching the modules the environment's msw already intercepts. `listen` hands the server's
 * handlers to this file's runtime (./http-handlers.ts): they answer their hosts after provider
 * and world hosts; `use`, `resetHandlers`, `restoreHandlers`, `listHandlers`, `boundary`,
 * `events` and `close` behave as in msw. What no handler answers goes on to jest-understudy's
 * network policy, not to msw's `onUnhandledRequest`, so provider traffic is still replayed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { UnderstudyError } from '../errors';
import {
  checkHandlers,
  type HandlerGroup,
  type HttpRequestHandler,
  prepend,
  restoreHandler,
} from './http-handlers';
import { getRuntime, type SandboxRuntime } from './runtime';

type Listener = (event: Record<string, unknown>) => void;

/** msw's life-cycle events (`request:start`, `request:match`, `request:unhandled`, `request:end`, `response:mocked`, `unhandledException`). */
class LifeCycleEvents {
  private readonly listeners = new Map<string, Listener[]>();

  on(type: string, listener: Listener): this {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
    return this;
  }

  once(type: string, listener: Listener): this {
    const once: Listener = (event) => {
      this.removeListener(type, once);
      listener(event);
    };
    return this.on(type, once);
  }

  removeListener(type: string, listener: Listener): this {
    this.listeners.set(
      type,
      (this.listeners.get(type) ?? []).filter((l) => l !== listener),
    );
    return this;
  }

  off(type: string, listener: Listener): this {
    return this.removeListener(type, listener);
  }

  removeAllListeners(type?: string): this {
    if (type === undefined) this.listeners.clear();
    else this.listeners.delete(type);
    return this;
  }

  listenerCount(type: string): number {
    return this.listeners.get(type)?.length ?? 0;
  }

  emit(type: string, event: Record<string, unknown>): boolean {
    const listeners = this.listeners.get(type) ?? [];
    for (const listener of listeners) listener(event);
    return listeners.length > 0;
  }
}

interface Handlers {
  initial: HttpRequestHandler[];
  overrides: HttpRequestHandler[];
}

class SetupServer implements HandlerGroup {
  readonly events = new LifeCycleEvents();
  private readonly own: Handlers;
  /** `boundary()` scopes: what `use` and `resetHandlers` change inside one. */
  private readonly scopes = new AsyncLocalStorage<Handlers>();
  /** The session of the test file the server listens for. */
  private listeningOn: SandboxRuntime | undefined;

  constructor(handlers: unknown[]) {
    this.own = { initial: checkHandlers(handlers, 'setupServer(...)'), overrides: [] };
  }

  /** msw 3's `NetworkReadyState`: 0 disabled, 1 enabled. */
  get readyState(): number {
    return this.listeningOn ? 1 : 0;
  }

  /**
   * `onUnhandledRequest` / `onUnhandledFrame` are not used: what no handler answers follows the
   * network policy. A server a shared module made (Vitest's `isolate: false`) listens again for
   * each test file that calls `listen`, with that file's session, whether or not an earlier file
   * closed it.
   */
  listen(_options?: unknown): void {
    const runtime = getRuntime();
    if (this.listeningOn === runtime) return;
    this.listeningOn = runtime;
    runtime.http.listen(this);
  }

  close(): void {
    const runtime = this.listeningOn;
    if (!runtime) return;
    this.listeningOn = undefined;
    runtime.http.close(this);
  }

  use(...handlers: unknown[]): void {
    const scope = this.scope();
    scope.overrides = prepend(checkHandlers(handlers, 'server.use(...)'), scope.overrides);
  }

  resetHandlers(...next: unknown[]): void {
    const scope = this.scope();
    if (next.length > 0) scope.initial = checkHandlers(next, 'server.resetHandlers(...)');
    scope.overrides = [];
  }

  restoreHandlers(): void {
    for (const handler of this.current()) restoreHandler(handler);
  }

  listHandlers(): readonly HttpRequestHandler[] {
    return Object.freeze([...this.current()]);
  }

  boundary<Args extends unknown[], R>(callback: (...args: Args) => R): (...args: Args) => R {
    return (...args: Args) =>
      this.scopes.run({ initial: [...this.current()], overrides: [] }, () => callback(...args));
  }

  current(): readonly HttpRequestHandler[] {
    const scope = this.scope();
    return [...scope.overrides, ...scope.initial];
  }

  emit(type: string, data: Record<string, unknown>): void {
    this.events.emit(type, data);
  }

  private scope(): Handlers {
    return this.scopes.getStore() ?? this.own;
  }
}

export type { SetupServer };

/** msw's `setupServer(...handlers)`, served by jest-understudy. */
export function setupServer(...handlers: unknown[]): SetupServer {
  return new SetupServer(handlers);
}

/** msw 2's class behind `setupServer`: not served, `setupServer(...handlers)` is. */
export class SetupServerApi {
  constructor() {
    throw new UnderstudyError(
      'HTTP_HANDLER_INVALID',
      'jest-understudy: new SetupServerApi(…) (msw/node) is not supported under the preset, whose msw/node ' +
        'is served by jest-understudy. Use setupServer(...handlers), or understudy.http.use(...handlers).',
    );
  }
}
