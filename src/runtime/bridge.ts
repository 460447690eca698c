/**
 * The contract between the environment (Jest's host realm) and the runtime the test
 * file loads (the sandbox realm). Only plain data and functions cross it: everything a
 * test catches or compares is built on the sandbox side.
 */
export const BRIDGE_KEY = Symbol.for('jest-understudy.bridge');

export interface UnderstudyOptions {
  /** Default world file (used once the world is loaded). */
  world?: string;
  /** Fixture files registered for every test file (globs allowed). */
  fixtures?: string[];
  strictTurnIndex?: boolean;
  /** Extra base URLs to intercept, per provider. */
  providers?: Partial<Record<'openai' | 'anthropic' | 'gemini', { baseURL?: string | string[] }>>;
  traceDir?: string;
  /** With real timers, multiply simulated delays by this (0 = no waiting). Also UNDERSTUDY_TIME_SCALE. */
  timeScale?: number;
}

/** Options after config, docblock pragmas and env vars are merged; paths are absolute. */
export interface ResolvedOptions {
  rootDir: string;
  testPath: string;
  world?: string;
  fixtures: string[];
  strictTurnIndex: boolean;
  providers: Partial<Record<'openai' | 'anthropic' | 'gemini', string[]>>;
  traceDir: string;
  timeScale: number;
}

/** What the sandbox runtime offers the environment. */
export interface SandboxRuntime {
  /** Serves `fetch(input, init)` when it targets a mocked host; undefined leaves it to msw. */
  handleFetch(input: unknown, init: unknown): Promise<Response> | undefined;
  /** Serves a request msw intercepted (node:http, https, XMLHttpRequest…); undefined if not ours. */
  handleRequest(request: Request): Promise<Response> | undefined;
  testStarted(name: string): void;
  testFinished(): void;
  /** Why the current test (or file) must fail since the last drain: unmatched model requests… */
  drainFailures(): string[];
}

export interface Bridge {
  options: ResolvedOptions;
  runtime: SandboxRuntime | undefined;
  /** Requests nothing handled, recorded by the environment, drained at test end. */
  unhandled: string[];
  /** Whether a test is running now (hooks of beforeAll/afterAll run outside one). */
  currentTest: string | undefined;
}
