/**
 * The test environment's options: as a Jest config gives them (`testEnvironmentOptions.understudy`,
 * described by environment/options.schema.ts) and as the environment resolves them for one test
 * file (config, docblock pragmas and `UNDERSTUDY_*` variables merged, paths absolute).
 */
import type { ContractsSetting } from './contracts/rules';
import type { DialectSetting } from './fixtures/stream-dialects';
import type { PriceTable } from './pricing';

export type TraceMode = 'on-failure' | 'always' | 'off';

/** Kinds of personal data recording can replace with placeholders (`redact: { pii }`). */
export type PiiKind = 'email' | 'card' | 'phone' | 'ssn' | 'iban' | 'ip';

/** The per-test history the reporter keeps (`history` option). */
export interface HistoryOption {
  /** Relative to the rootDir; a `.jsonl` file (default `.understudy/history.jsonl`). */
  path?: string;
  /** Records kept per test file, the flake rate's window (default 20). */
  keep?: number;
  /** Passes in a row after which a quarantined test is reported ready to leave (default 10). */
  readyAfter?: number;
}

export interface UnderstudyOptions {
  /** Tests that run and are reported but whose failure does not fail the run (`describe › test`). */
  quarantine?: string[];
  /** The per-test history (default on, in `.understudy/history.jsonl`); `false` keeps none. */
  history?: boolean | HistoryOption;
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
  /** The network policy: `allow` lists `host:port` patterns that pass untouched (`localhost:5432`, `*.internal.test:443`). */
  network?: { allow?: string[] };
  /**
   * A module whose export is an array of msw request handlers, used for every test file (after
   * provider and world hosts, before the network policy). Relative to the rootDir.
   */
  handlers?: string;
  /** The format of cassettes record mode creates: `json` (default) or `yaml`. */
  cassetteFormat?: 'json' | 'yaml';
  /** A cassette fixture recorded longer ago than this (`'90d'`, `'12h'`, `'2w'`) is stale. */
  cassetteMaxAge?: string;
  /** What recording redacts besides secrets: `{ pii: true }`, or `{ pii: ['email', 'card'] }`. */
  redact?: { pii?: boolean | PiiKind[] };
  /**
   * Stream dialects for every fixture of the file that sets none: `'all'`, `'none'`, a list of
   * dialect names, or `{ dialects, seed }`. Per file with the `@jest-environment-options` docblock.
   */
  dialect?: DialectSetting;
  /** Model prices in USD per million tokens, over the built-in table (`src/pricing/prices.ts`). */
  prices?: PriceTable;
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
  network: { allow: string[] };
  /** The `handlers` module, absolute. */
  handlers?: string;
  /** `cassetteMaxAge` in milliseconds, with the text it was given as. */
  cassetteMaxAge?: { ms: number; text: string };
  /** The personal data recording replaces with placeholders (empty: none). */
  pii: PiiKind[];
  /** When the test file started, on the wall clock of the host (fake timers cannot move it). */
  startedAt: number;
  quarantine: string[];
  /** Absolute path and bounds of the history file; undefined when the history is off. */
  history?: { path: string; keep: number; readyAfter: number };
  /** The file's tags (`@understudy-tags` docblock). */
  tags: string[];
  /** Only tests with one of these tags run (UNDERSTUDY_TAGS, set by `understudy record --tag`). */
  selectTags: string[];
  /** The `dialect` option, if given. */
  dialect?: DialectSetting;
  /** The `prices` option, if given (the user's entries; the built-in table is below them). */
  prices?: PriceTable;
}
