/**
 * The test environment's options: as a Jest config gives them (`testEnvironmentOptions.understudy`,
 * described by environment/options.schema.ts) and as the environment resolves them for one test
 * file (config, docblock pragmas and `UNDERSTUDY_*` variables merged, paths absolute).
 */
import type { ContractsSetting } from './contracts/rules';

export type TraceMode = 'on-failure' | 'always' | 'off';

export interface UnderstudyOptions {
  /** Default world file (used once the world is loaded). */
  world?: string;
  /** Fixture files registered for every test file (globs allowed). */
  fixtures?: string[];
  strictTurnIndex?: boolean;
  /** Extra base URLs to intercept, per provider. */
  providers?: Partial<Record<'openai' | 'anthropic' | 'gemini', { baseURL?: string | string[] }>>;
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
  /** The network policy: `allow` lists `host:port` patterns that pass untouched (`localhost:5432`, `*.internal.test:443`). */
  network?: { allow?: string[] };
  /**
   * A module whose export is an array of msw request handlers, used for every test file (after
   * provider and world hosts, before the network policy). Relative to the rootDir.
   */
  handlers?: string;
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
  network: { allow: string[] };
  /** The `handlers` module, absolute. */
  handlers?: string;
}
