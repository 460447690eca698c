/**
 * The world: what a world file declares (the `*Def` types, mirrored one-to-one by
 * world.schema.ts) and what the engine produces (operation records, events, envelopes).
 * Everything here is plain data, so it compares, snapshots and serialises as is.
 */

/** A JSON Schema an operation's input or output must follow (any draft-07 schema). */
export type JsonSchemaObject = Record<string, unknown>;

/** The collections of one package: `collection → key → record` (records are any JSON, typed loosely for reading). */
export type PackageState = Record<string, Record<string, any>>;

/** Every package's state: `packageId → collection → key → record`. */
export type WorldState = Record<string, PackageState>;

export interface OperationRef {
  packageId: string;
  operationId: string;
}

export type BindingKind = 'direct' | 'http' | 'mcp';

/**
 * How a call reached the engine: mockTool, the HTTP routes, the package's MCP server, a
 * scenario's tool fake (logged in the evidence beside the world's operations), or `cli`:
 * `understudy tool call` over the served port.
 */
export type Transport = 'direct' | 'http' | 'mcp' | 'fake' | 'cli';

// ── The world file ────────────────────────────────────────────────────────────

export interface WorldFile {
  $schema?: string;
  $comment?: string;
  name?: string;
  description?: string;
  /** Seed for random faults and `ctx.random()` when a drill names none. */
  seed?: number;
  /** The actor of calls that name none (HTTP without the actor header, `bind()` without actorId). */
  defaultActor?: string;
  /** JSON Schemas operations share, referenced as `#/definitions/<name>`. */
  definitions?: Record<string, JsonSchemaObject>;
  actors?: ActorDef[];
  packages: PackageDef[];
  /** Named behaviors a `behaviorOverrides` entry (or an operation) can select by name. */
  behaviors?: Record<string, BehaviorDef>;
  budgets?: BudgetDef[];
  idempotency?: IdempotencyDef;
  faults?: FaultDef[];
  events?: ScheduledEventDef[];
  toolOverrides?: ToolOverride[];
  scenarios?: Record<string, ScenarioDef>;
  drills?: Record<string, DrillDef>;
}

export interface ActorDef {
  id: string;
  description?: string;
  /** `packageId/operationId` patterns this actor may call; `*` matches any run of characters. */
  allow?: string[];
  /** Patterns this actor may not call, even when allowed. */
  deny?: string[];
}

export interface PackageDef {
  id: string;
  kind: 'external' | 'internal' | 'service' | 'workspace';
  description?: string;
  bindings: BindingKind[];
  http?: { baseURL: string };
  mcp?: McpDef;
  /** Initial state: `collection → key → record`. */
  state?: PackageState;
  /** kind workspace: a folder copied into each test's workspace, relative to the world file. */
  from?: string;
  /** kind workspace: files of the tree, `relative path → text` (written over `from`). */
  files?: Record<string, string>;
  /** Required except for kind workspace, whose operations are the built-in file tools (all six by default). */
  operations: OperationDef[];
}

/** How a package with the mcp binding is served as an MCP server (its tools are its operations). */
export interface McpDef {
  /** The Streamable HTTP endpoint; without one the server is reached in-process only. */
  url?: string;
  /** How a POST with requests is answered: one SSE stream (default) or one JSON body. */
  response?: 'sse' | 'json';
  /** A tool argument that carries the idempotency key (taken out of the input, like the HTTP header). */
  idempotencyKey?: string;
}

export interface OperationDef {
  id: string;
  description?: string;
  /** Tool names the model uses for this operation (links a run's tool calls to it). */
  toolNames?: string[];
  input?: JsonSchemaObject;
  output?: JsonSchemaObject;
  errors?: DeclaredError[];
  http?: HttpRouteDef;
  behavior?: BehaviorDef | string;
  idempotency?: { keyFrom?: string };
}

export interface DeclaredError {
  code: string;
  status: number;
  retryable?: boolean;
  message?: string;
  /** Seconds; sent as `retry-after` over HTTP and kept in the envelope. */
  retryAfter?: number;
  description?: string;
}

export interface HttpRouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below the package's base URL; `{name}` segments are path parameters. */
  path: string;
  /** Status of a successful response (default 200; 204 when the output is null/undefined). */
  status?: number;
}

export type BuiltinName = 'get' | 'list' | 'create' | 'upsert' | 'delete';

export interface BehaviorDef {
  builtin?: BuiltinName;
  collection?: string;
  /** The input field that holds the record's key (default "id"). */
  key?: string;
  /** Declared error code for a missing record (get, delete; default "NOT_FOUND"). */
  notFound?: string;
  /** Declared error code for an existing key (create; default "CONFLICT"). */
  conflict?: string;
  /** create: generate missing keys as `<prefix><n>`. */
  generate?: string;
  /** list: input fields that, when given, must equal the record's. */
  filter?: string[];
  /** list: return `{ <wrap>: [...] }` instead of the bare list. */
  wrap?: string;
  /** upsert: merge into the existing record instead of replacing it. */
  merge?: boolean;
  /** create / upsert: constant fields added to the record. */
  set?: Record<string, unknown>;
  /** Emit an event of this type with the record after a successful change. */
  emits?: string;
  /** A behavior module, relative to the world file. */
  module?: string;
  /** The module's export that handles the operation (default: the operation id, then `default`). */
  export?: string;
}

export interface IdempotencyDef {
  /** HTTP header carrying the key (default "Idempotency-Key"). */
  header?: string;
}

export interface BudgetDef {
  id?: string;
  description?: string;
  operation?: { packageId: string; operationId?: string };
  actorId?: string;
  /** Calls allowed per run (an `understudy.run`, harness run or drill trial; else per test). */
  maxCalls: number;
}

export interface RuleWhen {
  arguments?: Record<string, unknown>;
  actorId?: string;
}

export interface FaultDef {
  id?: string;
  description?: string;
  operation: OperationRef;
  kind: 'error' | 'latency' | 'timeout';
  code?: string;
  message?: string;
  ms?: number;
  rate?: number;
  onCalls?: number[];
  times?: number;
  when?: RuleWhen;
}

export interface StateChangeDef {
  collection: string;
  key: string;
  set?: unknown;
  merge?: Record<string, unknown>;
  delete?: boolean;
}

export interface ScheduledEventDef {
  id: string;
  description?: string;
  atMs: number;
  packageId: string;
  emit?: WorldEventPayload;
  apply?: StateChangeDef;
  module?: string;
  export?: string;
  input?: unknown;
}

export type OverrideOutcome =
  | { kind: 'return'; value: unknown }
  | { kind: 'error'; code: string; message?: string; retryable?: boolean; details?: unknown }
  | { kind: 'original' };

export interface ToolOverride {
  id?: string;
  description?: string;
  operation: OperationRef;
  when?: RuleWhen;
  /** Matches before the rule is used up; omit for unlimited. */
  times?: number;
  outcome: OverrideOutcome;
}

export interface ScenarioDef {
  description?: string;
  /** The complete starting state (replaces the world's; packages it does not list start empty). */
  state?: WorldState;
  toolOverrides?: ToolOverride[];
  /** Replace the world's faults when given. */
  faults?: FaultDef[];
  /** Replace the world's scheduled events when given. */
  events?: ScheduledEventDef[];
}

export interface OperationFilter {
  packageId: string;
  operationId?: string;
  arguments?: Record<string, unknown>;
  actorId?: string;
  outcome?: 'ok' | 'error';
  code?: string;
  replayed?: boolean;
}

export interface CountRange {
  min?: number;
  max?: number;
}

export interface Criterion {
  description?: string;
  /** A JSON path into the final world state, e.g. `$.record-store.records.record-1.text`. */
  state?: string;
  equals?: unknown;
  contains?: unknown;
  exists?: boolean;
  called?: OperationFilter;
  /** With `called`: how many matching operations (a number or { min, max }; default at least 1). */
  times?: number | CountRange;
  notCalled?: OperationFilter;
  noErrors?: boolean | { except?: string[] };
  /** A file of the workspace (a relative path), checked with `equals`, `contains`, `matches` or `exists`. */
  file?: string;
  /** With `file`: a regular expression the file's text must match. */
  matches?: string;
  /** A file of the workspace that must end as it started. */
  fileUnchanged?: string;
  /** Globs of the workspace outside which no file may change. */
  noChangesOutside?: string[];
  /** The workspace package the file criteria read (needed when the world has several). */
  workspace?: string;
  /** No logical request of the operation took effect twice: by idempotency key, and by input. */
  noDuplicateEffects?: { packageId?: string; operationId: string };
}

export interface DrillDef {
  description?: string;
  instruction: string;
  scenario?: string;
  actor?: string;
  input?: unknown;
  toolOverrides?: ToolOverride[];
  success: Criterion[];
  trials?: number;
  timeoutMs?: number;
  /** Crashes each trial's first attempt; the agent then starts again on the same world. */
  crash?: { afterOperation: OperationRef; atStep?: never } | { atStep: number; afterOperation?: never };
}

// ── What the engine produces ──────────────────────────────────────────────────

/** The JSON error envelope of a failed operation (also the HTTP error body's `error`). */
export interface ToolErrorEnvelope {
  code: string;
  message: string;
  retryable: boolean;
  status: number;
  details?: unknown;
  /** Seconds, when the declared error gives one (sent as `retry-after` over HTTP). */
  retryAfter?: number;
}

export type OperationOutcome = { kind: 'ok'; value: unknown } | { kind: 'error'; error: ToolErrorEnvelope };

export type OverrideScope = 'world' | 'scenario' | 'drill' | 'test';

/** One operation in the evidence log. */
// A type alias, not an interface: plain-data consumers (traces) read it through an index signature.
export type OperationRecord = {
  /** 1-based position in this world's log (restarts on a whole-world reset). */
  seq: number;
  packageId: string;
  operationId: string;
  input: unknown;
  actorId: string;
  transport: Transport;
  idempotencyKey?: string;
  outcome: OperationOutcome;
  /** The tool override that chose the outcome. */
  override?: { id: string; scope: OverrideScope; outcome: OverrideOutcome['kind']; matchCount: number };
  /** A repeated successful idempotency key: the receipt of operation `of` was returned. */
  idempotent?: { replayed: true; of: number };
  /** Faults that fired on the normal path. */
  faults?: Array<{ id: string; kind: FaultDef['kind'] }>;
  /** Simulated latency (latency and timeout faults) in ms, on the world clock. */
  latencyMs?: number;
  /** Events the operation emitted. */
  events?: WorldEventPayload[];
  /** World clock when the call arrived. */
  clockMs: number;
  /** Files of a workspace the operation changed, each with its unified diff. */
  files?: FileChange[];
};

/**
 * One entry of a workspace (a file or a symbolic link) that changed, as `git status` sees it,
 * with a unified diff (`--- a/path`, `+++ b/path`, and git's mode lines when a mode changed or
 * is not a plain file's).
 */
export interface FileChange {
  packageId: string;
  /** Relative to the workspace folder, with `/` separators. */
  path: string;
  /**
   * `modified` covers the content and the executable bit (`chmod +x`); `typechange` is a file
   * that became a symbolic link or the other way round.
   */
  change: 'added' | 'modified' | 'deleted' | 'typechange';
  diff: string;
}

export interface WorldEventPayload {
  type: string;
  [field: string]: unknown;
}

/** One entry of the world's event log. */
export interface WorldEvent {
  seq: number;
  clockMs: number;
  packageId: string;
  /** The operation that emitted it, or the scheduled event / consequence that fired. */
  source: { operation: number } | { scheduled: string };
  event: WorldEventPayload;
}
