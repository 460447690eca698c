/**
 * The contract between the environment (Jest's host realm) and the runtime the test
 * file loads (the sandbox realm). Only plain data and functions cross it: everything a
 * test catches or compares is built on the sandbox side.
 */
import type { ContractsSetting } from '../contracts/rules';
import type { DialectSetting } from '../model/dialects';
import type { FileStats, Phase, TestEvidence } from '../trace/evidence';

export const BRIDGE_KEY = Symbol.for('jest-understudy.bridge');

export type TraceMode = 'on-failure' | 'always' | 'off';

export interface UnderstudyOptions {
  /** Default world file (used once the world is loaded). */
  world?: string;
  /** Fixture files registered for every test file (globs allowed). */
  fixtures?: string[];
  strictTurnIndex?: boolean;
  /** Extra base URLs to intercept, per provider, and the provider presets (Azure, Vertex, gateways). */
  providers?: ProvidersOption;
  traceDir?: string;
  /** When to write a trace and timeline: for failing tests (default), every test, or never. Also UNDERSTUDY_TRACES. */
  traces?: TraceMode;
  /** With real timers, multiply simulated delays by this (0 = no waiting). Also UNDERSTUDY_TIME_SCALE. */
  timeScale?: number;
  /** Fail a test a stale cassette fixture answers (default: warn). Also UNDERSTUDY_STRICT_CASSETTES=1. */
  strictCassettes?: boolean;
  /**
   * Where record mode writes each test file's cassette: `<cassetteDir>/<test path below rootDir>.cassette.json`.
   * Default: `__cassettes__/<test file name>.cassette.json` beside the test file.
   */
  cassetteDir?: string;
  /**
   * Request contracts (on by default): `false` turns every rule off, `{ rule: false }` one rule.
   * Per file with the `@jest-environment-options` docblock.
   */
  contracts?: ContractsSetting;
  /**
   * Stream dialects for every fixture of the file that sets none: `'all'`, `'none'`, a list of
   * dialect names, or `{ dialects, seed }`. Per file with the `@jest-environment-options` docblock.
   */
  dialect?: DialectSetting;
}

/** The keys of the `providers` option: the providers, and the presets of services that speak their protocols. */
export type ProviderOptionName =
  | 'openai'
  | 'anthropic'
  | 'gemini'
  | 'bedrock'
  | 'azure'
  | 'vertex'
  | 'openrouter'
  | 'ollama'
  | 'litellm';

type BaseURLs = { baseURL?: string | string[] };

/** Extra base URLs per provider or preset; the local gateways (`ollama`, `litellm`) may be just `true`. */
export type ProvidersOption = Partial<Record<Exclude<ProviderOptionName, 'ollama' | 'litellm'>, BaseURLs>> &
  Partial<Record<'ollama' | 'litellm', BaseURLs | boolean>>;

/** Options after config, docblock pragmas and env vars are merged; paths are absolute. */
export interface ResolvedOptions {
  rootDir: string;
  testPath: string;
  world?: string;
  fixtures: string[];
  strictTurnIndex: boolean;
  /** Extra base URLs per provider or preset (a local gateway turned on with `true` gets its defaults). */
  providers: Partial<Record<ProviderOptionName, string[]>>;
  traceDir: string;
  traces: TraceMode;
  timeScale: number;
  /** `UNDERSTUDY_MODE`: replay (default), record, record-missing or live. */
  mode: 'replay' | 'record' | 'record-missing' | 'live';
  strictCassettes: boolean;
  /** This test file's cassette: what record mode writes, and what replay loads when it exists. */
  cassette: string;
  /** Where this test file notes which fixtures answered (for `understudy fixtures check --unused`). */
  usageFile?: string;
  /** The `contracts` option as given (`true` when absent). */
  contracts: ContractsSetting;
  /** The `dialect` option, if given. */
  dialect?: DialectSetting;
}

/** A model request on its way to the real provider (record and live modes). */
export interface UpstreamRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: string;
  signal?: AbortSignal;
}

/** What the sandbox runtime offers the environment. */
export interface SandboxRuntime {
  /** Serves `fetch(input, init)` when it targets a mocked host; undefined leaves it to msw. */
  handleFetch(input: unknown, init: unknown): Promise<Response> | undefined;
  /** Serves a request msw intercepted (node:http, https, XMLHttpRequest…); undefined if not ours. */
  handleRequest(request: Request): Promise<Response> | undefined;
  /**
   * Whether requests to `origin` (`https://api.openai.com`) are this file's to serve: a provider's
   * or a world package's base URL is there. The network guards route such connections here.
   */
  serves?(origin: string): boolean;
  testStarted(name: string): void;
  testFinished(): void;
  /** Why the current test (or file) must fail since the last drain: unmatched model requests… */
  drainFailures(): string[];
  /** The file's tests are done: write its cassette (record modes) and fixture usage; returns failures. */
  fileFinished?(failedTests: number): Promise<string[]>;
  /** The current test's runs, model calls and failed expectation, as plain scrubbed data. */
  testEvidence(): TestEvidence;
  /** This file's counts so far, for the reporter. */
  fileStats(): FileStats;
  /** Jest is about to install, remove or reset its fake clock: read what it was advanced by. */
  timersChanging?(): void;
}

export interface Bridge {
  options: ResolvedOptions;
  runtime: SandboxRuntime | undefined;
  /**
   * Creates the runtime in the test realm on first need (set by the preset's setup file), so a
   * test file that never talks to a model or tool pays nothing for loading it.
   */
  loadRuntime?: () => SandboxRuntime;
  /** Requests nothing handled, recorded by the environment, drained at test end. */
  unhandled: string[];
  /** Whether a test is running now (hooks of beforeAll/afterAll run outside one). */
  currentTest: string | undefined;
  /**
   * Sends a request to the real provider past the interception (msw's `bypass`), for record
   * and live modes. Replay never calls it.
   */
  upstream?: (request: UpstreamRequest) => Promise<Response>;
  /** Which part of the test lifecycle runs now (set by the environment from Jest's events). */
  phase?: Phase;
  /**
   * Loads one of the package's dependencies with Node's own loader, outside the test file's
   * module registry: for an ES module (eventsource-parser), which Jest's CommonJS runtime cannot
   * load, and which it would refuse to load at all once the file's tests are over.
   */
  hostRequire?: (id: 'eventsource-parser') => unknown;
}
