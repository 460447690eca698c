/**
 * THE JSON Schema of a world file. Single source of truth, like the fixture schema:
 * `schemas/world.schema.json` (published, for editors: `$schema` or
 * `# yaml-language-server: $schema=…`) is generated from it by scripts/write-schemas.mjs
 * and a test keeps the two identical. The loader compiles this object with ajv.
 *
 * The property lists are checked against types.ts at compile time (`satisfies
 * Described<keyof …>`), so a field added there without a description here does not compile.
 *
 * Only `import type` here: scripts/write-schemas.mjs loads this file with Node's type
 * stripping, which cannot resolve extensionless runtime imports.
 */
import type { JsonSchema } from '../file-format/json-schema';
import type {
  ActorDef,
  BehaviorDef,
  BudgetDef,
  Criterion,
  DeclaredError,
  DrillDef,
  FaultDef,
  HttpRouteDef,
  McpDef,
  OperationDef,
  OperationFilter,
  PackageDef,
  RuleWhen,
  ScenarioDef,
  ScheduledEventDef,
  StateChangeDef,
  ToolOverride,
  WorldFile,
} from './types';

type Described<K extends PropertyKey> = Record<K, JsonSchema & { description: string }>;

const ref = (name: string, description: string) => ({ $ref: `#/definitions/${name}`, description });
const string = (description: string) => ({ type: 'string', description });
const id = (description: string) => ({ type: 'string', minLength: 1, description });
const boolean = (description: string) => ({ type: 'boolean', description });
const nonNegativeInteger = (description: string) => ({ type: 'integer', minimum: 0, description });
const positiveInteger = (description: string) => ({ type: 'integer', minimum: 1, description });
const nonNegativeNumber = (description: string) => ({ type: 'number', minimum: 0, description });
const anyValue = (description: string) => ({ description });
const list = (items: JsonSchema, description: string) => ({ type: 'array', items, description });
const map = (values: JsonSchema, description: string) => ({
  type: 'object',
  additionalProperties: values,
  description,
});
const jsonSchema = (description: string) => ({ type: ['object', 'boolean'], description });

/** `{ kind: "x" }` selects the `then` branch: JSON Schema's way of saying "when kind is x". */
const when = (property: string, value: string, then: JsonSchema): JsonSchema => ({
  if: { properties: { [property]: { enum: [value] } }, required: [property] },
  then,
});

const operationRef: JsonSchema = {
  title: '{ packageId, operationId }',
  description: 'Names one operation of one package.',
  type: 'object',
  properties: {
    packageId: id('The package id.'),
    operationId: id('The operation id within the package.'),
  },
  required: ['packageId', 'operationId'],
  additionalProperties: false,
};

const ruleWhen: JsonSchema = {
  title: '{ arguments?, actorId? }',
  description:
    'When the rule applies. Each supplied argument must equal the call input exactly (nested objects and arrays included); other top-level arguments may differ.',
  type: 'object',
  properties: {
    arguments: { type: 'object', description: 'Argument values the call input must have (top-level keys).' },
    actorId: id('Only calls made by this actor.'),
  } satisfies Described<keyof RuleWhen>,
  additionalProperties: false,
};

const outcome: JsonSchema = {
  title: '{ kind: "return" | "error" | "original", … }',
  description:
    'What a matching call gets. `return`: this value (it must match the output schema) without running the behavior or its faults; no state changes. `error`: a declared error of the operation, without running the behavior or faults. `original`: the normal behavior, including its active faults.',
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['return', 'error', 'original'], description: 'The kind of outcome.' },
    value: anyValue('kind "return": the value returned (validated against the output schema).'),
    code: id('kind "error": a code the operation declares in `errors`.'),
    message: string('kind "error": the message (default: the declared error\'s message).'),
    retryable: boolean('kind "error": whether a retry may succeed (default: the declared error\'s).'),
    details: anyValue('kind "error": extra data for the envelope.'),
  },
  required: ['kind'],
  additionalProperties: false,
  allOf: [when('kind', 'return', { required: ['value'] }), when('kind', 'error', { required: ['code'] })],
};

const toolOverride: JsonSchema = {
  title: '{ id?, operation, when?, times?, outcome }',
  description:
    'Replaces the outcome of matching calls. Priority: world → scenario → drill → per-test; within a scope the later matching rule wins; a higher-scope rule with the same id replaces the lower one entirely.',
  type: 'object',
  properties: {
    id: id(
      'Identity recorded with each operation it serves; a higher scope replaces a rule with the same id.',
    ),
    description: string('What the rule is for.'),
    operation: ref('operationRef', 'The operation the rule applies to.'),
    when: ref('ruleWhen', 'Argument values and actor the call must have.'),
    times: positiveInteger(
      'Matches before the rule is used up; then matching continues with other rules, then normal behavior. Omit for unlimited.',
    ),
    outcome: ref('outcome', 'What a matching call gets.'),
  } satisfies Described<keyof ToolOverride>,
  required: ['operation', 'outcome'],
  additionalProperties: false,
};

const declaredError: JsonSchema = {
  title: '{ code, status, retryable?, message? }',
  description: 'An error the operation can fail with (from its behavior, a fault or an override).',
  type: 'object',
  properties: {
    code: {
      type: 'string',
      pattern: '^[A-Za-z][A-Za-z0-9_.-]*$',
      description: 'The error code, e.g. "BUSY".',
    },
    status: { type: 'integer', minimum: 400, maximum: 599, description: 'HTTP status of the error.' },
    retryable: boolean('Whether a retry may succeed (default false).'),
    message: string('Default message.'),
    retryAfter: nonNegativeNumber('Seconds to wait before retrying; sent as `retry-after` over HTTP.'),
    description: string('When the operation fails this way.'),
  } satisfies Described<keyof DeclaredError>,
  required: ['code', 'status'],
  additionalProperties: false,
};

const httpRoute: JsonSchema = {
  title: '{ method, path, status? }',
  description:
    'Serves the operation over HTTP below its package base URL. Path parameters, query parameters and a JSON body become the input.',
  type: 'object',
  properties: {
    method: {
      type: 'string',
      enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      description: 'HTTP method.',
    },
    path: {
      type: 'string',
      pattern: '^/',
      description: 'Path below the base URL; `{name}` segments are path parameters, e.g. "/records/{id}".',
    },
    status: {
      type: 'integer',
      minimum: 200,
      maximum: 299,
      description: 'Status of a success (default 200).',
    },
  } satisfies Described<keyof HttpRouteDef>,
  required: ['method', 'path'],
  additionalProperties: false,
};

const behavior: JsonSchema = {
  title: '{ builtin, collection, … } or { module, export? }',
  description:
    'How the operation behaves: a built-in on a keyed collection of its package (get, list, create, upsert, delete) or a behavior module (TypeScript or JavaScript, loaded through Jest).',
  type: 'object',
  properties: {
    builtin: {
      type: 'string',
      enum: ['get', 'list', 'create', 'upsert', 'delete'],
      description: 'A built-in behavior on `collection`.',
    },
    collection: id('The collection of the package state the built-in works on.'),
    key: id('The input field holding the record key (default "id").'),
    notFound: id('get / delete: the declared error for a missing record (default "NOT_FOUND").'),
    conflict: id('create: the declared error for an existing key (default "CONFLICT").'),
    generate: string('create: generate a missing key as `<prefix><n>`, e.g. "rec-".'),
    filter: list({ type: 'string' }, 'list: input fields that, when given, must equal the record field.'),
    wrap: id('list: return `{ <wrap>: [ … ] }` instead of the bare list.'),
    merge: boolean('upsert: merge into an existing record instead of replacing it.'),
    set: { type: 'object', description: 'create / upsert: constant fields added to the record.' },
    emits: id('Emit an event of this type (with `key` and `record`) after a change.'),
    module: id('A behavior module path, relative to the world file (.ts, .js, …).'),
    export: id('The handler export (default: the operation id, then `default`).'),
  } satisfies Described<keyof BehaviorDef>,
  additionalProperties: false,
  anyOf: [{ required: ['builtin'] }, { required: ['module'] }],
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a thenable
  allOf: [{ if: { required: ['builtin'] }, then: { required: ['collection'] } }],
};

const operation: JsonSchema = {
  title: '{ id, input, output, errors, http, behavior, … }',
  description: 'One operation (a tool) of a package.',
  type: 'object',
  properties: {
    id: id('Operation id, unique in its package, e.g. "records.save".'),
    description: string('What the operation does.'),
    toolNames: list(
      id('A tool name.'),
      "Tool names the model uses for this operation: a run links those tool calls to the operations that served them (default: the operation id, also with '.' as '_').",
    ),
    input: jsonSchema('JSON Schema of the input (default: any object). May use `#/definitions/<name>`.'),
    output: jsonSchema('JSON Schema of the output (default: anything). May use `#/definitions/<name>`.'),
    errors: list({ $ref: '#/definitions/declaredError' }, 'The errors the operation declares.'),
    http: ref('httpRoute', 'Method and path when the package has an http binding.'),
    behavior: {
      description: 'The behavior: a built-in, a module, or the name of an entry of `behaviors`.',
      anyOf: [{ type: 'string', minLength: 1 }, { $ref: '#/definitions/behavior' }],
    },
    idempotency: {
      type: 'object',
      description: 'Idempotency of the operation.',
      properties: {
        keyFrom: id('An input field used as the idempotency key when the transport supplies none.'),
      },
      additionalProperties: false,
    },
  } satisfies Described<keyof OperationDef>,
  required: ['id'],
  additionalProperties: false,
};

const packageDef: JsonSchema = {
  title: '{ id, kind, bindings, operations, … }',
  description: 'A dependency of the agent: an external service, an internal module, an API.',
  type: 'object',
  properties: {
    id: id('Package id, e.g. "record-store".'),
    kind: {
      type: 'string',
      enum: ['external', 'internal', 'service', 'workspace'],
      description:
        'external: a third-party dependency; internal: a module of your own code; service: an API of your own; workspace: a file tree (`from` / `files`) copied into a fresh temporary folder for each test and drill trial, whose operations are the built-in file tools (read_file, write_file, edit_file, list_dir, glob, grep).',
    },
    description: string('What the package is.'),
    bindings: {
      type: 'array',
      items: { type: 'string', enum: ['direct', 'http', 'mcp'] },
      minItems: 1,
      uniqueItems: true,
      description:
        'How the agent reaches it: direct (function mocks with mockTool), http (served at http.baseURL), mcp (an MCP server whose tools are the operations: Streamable HTTP at mcp.url, in-process through understudy.world.mcpTransport).',
    },
    http: {
      type: 'object',
      description: 'Where the http binding is served.',
      properties: { baseURL: string('Absolute base URL, e.g. "https://records.example.test/v1".') },
      required: ['baseURL'],
      additionalProperties: false,
    },
    mcp: ref('mcp', 'How the mcp binding is served.'),
    state: ref('packageState', 'Initial state: collection → key → record.'),
    from: id(
      'kind workspace: a folder copied into each workspace, relative to the world file (never written to).',
    ),
    files: map(
      { type: 'string' },
      'kind workspace: files of the tree, relative path → text (written over `from`), e.g. { "src/app.ts": "…" }.',
    ),
    operations: list(
      { $ref: '#/definitions/operation' },
      'The operations of the package. kind workspace: optional, the built-in file tools it offers (default all), each `{ id, description?, toolNames?, http? }`.',
    ),
  } satisfies Described<keyof PackageDef>,
  required: ['id', 'kind', 'bindings'],
  additionalProperties: false,
  allOf: [
    {
      if: { properties: { kind: { enum: ['workspace'] } }, required: ['kind'] },
      else: { required: ['operations'] },
    },
    {
      if: {
        properties: { bindings: { type: 'array', contains: { enum: ['http'] } } },
        required: ['bindings'],
      },
      // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a thenable
      then: { required: ['http'] },
    },
  ],
};

const mcp: JsonSchema = {
  title: '{ url?, response?, idempotencyKey? }',
  description:
    "The package as an MCP server: one tool per operation (named by its first toolNames entry, else its id with '.' as '_').",
  type: 'object',
  properties: {
    url: string(
      'Absolute URL of the Streamable HTTP endpoint, e.g. "https://tools.example.test/mcp" (without it: in-process only).',
    ),
    response: {
      type: 'string',
      enum: ['sse', 'json'],
      description: 'How a POST carrying requests is answered: an SSE stream (default) or a JSON body.',
    },
    idempotencyKey: id(
      "A tool argument that carries the idempotency key, like the HTTP header: taken out of the input and added to every tool's inputSchema.",
    ),
  } satisfies Described<keyof McpDef>,
  additionalProperties: false,
};

const packageState: JsonSchema = {
  title: '{ <collection>: { <key>: record } }',
  description: 'The collections of a package, each a map from key to record.',
  type: 'object',
  additionalProperties: { type: 'object', description: 'A collection: key → record.' },
};

const actor: JsonSchema = {
  title: '{ id, allow?, deny? }',
  description:
    'Who may call what. When a world declares actors, only they may call, and only what `allow` covers and `deny` does not.',
  type: 'object',
  properties: {
    id: id('Actor id, e.g. "agent".'),
    description: string('Who the actor is.'),
    allow: list(
      id('A pattern.'),
      '`packageId/operationId` patterns the actor may call; `*` matches anything, e.g. "record-store/*".',
    ),
    deny: list(id('A pattern.'), 'Patterns the actor may not call, even when allowed.'),
  } satisfies Described<keyof ActorDef>,
  required: ['id'],
  additionalProperties: false,
};

const budget: JsonSchema = {
  title: '{ maxCalls, operation?, actorId? }',
  description:
    'At most `maxCalls` calls per run (an understudy.run, a harness run or a drill trial; outside runs, per test). Further calls fail with BUDGET_EXCEEDED.',
  type: 'object',
  properties: {
    id: id('Name shown in the error.'),
    description: string('What the budget protects.'),
    operation: {
      type: 'object',
      description: 'Counts calls of this package (and operation, when given); default: every call.',
      properties: { packageId: id('The package id.'), operationId: id('The operation id.') },
      required: ['packageId'],
      additionalProperties: false,
    },
    actorId: id('Counts only calls of this actor.'),
    maxCalls: nonNegativeInteger('Calls allowed.'),
  } satisfies Described<keyof BudgetDef>,
  required: ['maxCalls'],
  additionalProperties: false,
};

const fault: JsonSchema = {
  title: '{ operation, kind, … }',
  description:
    'A fault on the normal path (not on `return` / `error` overrides): a declared error, latency on the world clock, or a timeout. Fires on the given call numbers, at a seeded random rate, or always.',
  type: 'object',
  properties: {
    id: id('Name recorded with the operations it hits.'),
    description: string('What the fault simulates.'),
    operation: ref('operationRef', 'The operation it affects.'),
    kind: {
      type: 'string',
      enum: ['error', 'latency', 'timeout'],
      description: 'error: fail with `code`; latency: delay by `ms`; timeout: fail with TIMEOUT after `ms`.',
    },
    code: id('kind "error": a declared error code of the operation.'),
    message: string('kind "error": the message (default: the declared error\'s).'),
    ms: nonNegativeNumber('Milliseconds of latency (or before the timeout), on the world clock.'),
    rate: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'Chance per call (seeded: the same seed replays the same faults).',
    },
    onCalls: list(
      { type: 'integer', minimum: 1 },
      '1-based numbers of the calls (reaching the normal path) it fires on.',
    ),
    times: positiveInteger('Fires at most this many times.'),
    when: ref('ruleWhen', 'Argument values and actor the call must have.'),
  } satisfies Described<keyof FaultDef>,
  required: ['operation', 'kind'],
  additionalProperties: false,
  allOf: [when('kind', 'error', { required: ['code'] }), when('kind', 'latency', { required: ['ms'] })],
};

const stateChange: JsonSchema = {
  title: '{ collection, key, set | merge | delete }',
  description: 'A change to one record of the package state.',
  type: 'object',
  properties: {
    collection: id('The collection.'),
    key: id('The record key.'),
    set: anyValue('Replace the record with this value.'),
    merge: { type: 'object', description: 'Merge these fields into the record.' },
    delete: boolean('Delete the record.'),
  } satisfies Described<keyof StateChangeDef>,
  required: ['collection', 'key'],
  additionalProperties: false,
  anyOf: [{ required: ['set'] }, { required: ['merge'] }, { required: ['delete'] }],
};

const scheduledEvent: JsonSchema = {
  title: '{ id, atMs, packageId, emit? | apply? | module? }',
  description:
    'Something that happens in the world at a time on the world clock (which follows Jest fake timers): an event, a state change, or a behavior-module handler.',
  type: 'object',
  properties: {
    id: id('Name of the event, recorded as its source.'),
    description: string('What happens.'),
    atMs: nonNegativeNumber('World clock time, in ms since the world (re)started.'),
    packageId: id('The package whose state it changes.'),
    emit: {
      type: 'object',
      description: 'An event to emit: `{ type, … }`.',
      properties: { type: id('Event type.') },
      required: ['type'],
    },
    apply: ref('stateChange', 'A state change.'),
    module: id('A behavior module (relative to the world file) whose handler runs.'),
    export: id('The handler export (default `default`).'),
    input: anyValue('`ctx.input` of the handler.'),
  } satisfies Described<keyof ScheduledEventDef>,
  required: ['id', 'atMs', 'packageId'],
  additionalProperties: false,
  anyOf: [{ required: ['emit'] }, { required: ['apply'] }, { required: ['module'] }],
};

const scenario: JsonSchema = {
  title: '{ state?, toolOverrides?, faults?, events? }',
  description:
    "A complete starting setup, not an overlay: its state replaces the world's initial state (packages it does not list start empty); its faults and events replace the world's when given; its toolOverrides sit in the scenario scope above the world's.",
  type: 'object',
  properties: {
    description: string('What the scenario sets up.'),
    state: map(
      { $ref: '#/definitions/packageState' },
      'Starting state: packageId → collection → key → record.',
    ),
    toolOverrides: list({ $ref: '#/definitions/toolOverride' }, 'Rules in the scenario scope.'),
    faults: list({ $ref: '#/definitions/fault' }, "Faults (replace the world's)."),
    events: list({ $ref: '#/definitions/scheduledEvent' }, "Scheduled events (replace the world's)."),
  } satisfies Described<keyof ScenarioDef>,
  additionalProperties: false,
};

const operationFilter: JsonSchema = {
  title: '{ packageId, operationId?, arguments?, outcome?, code?, … }',
  description: 'Which operations of the evidence count.',
  type: 'object',
  properties: {
    packageId: id('The package id.'),
    operationId: id('The operation id (default: any of the package).'),
    arguments: { type: 'object', description: 'Input values the operation had (deep subset).' },
    actorId: id('The actor that called.'),
    outcome: { type: 'string', enum: ['ok', 'error'], description: 'How it ended.' },
    code: id('The error code it ended with.'),
    replayed: boolean('true: only idempotent replays; false: only operations that were not replays.'),
  } satisfies Described<keyof OperationFilter>,
  required: ['packageId'],
  additionalProperties: false,
};

const countRange = {
  type: 'object',
  title: '{ min?, max? }',
  properties: { min: nonNegativeInteger('At least.'), max: nonNegativeInteger('At most.') },
  additionalProperties: false,
};

const criterion: JsonSchema = {
  title:
    '{ state, equals | contains | exists } or { called, times? } or { notCalled } or { noErrors } or { file, equals | contains | matches | exists } or { fileUnchanged } or { noChangesOutside }',
  description:
    'One success criterion of a drill, over the final world state and the evidence. Every criterion must hold for the drill to pass.',
  type: 'object',
  properties: {
    description: string('Shown in the verdict instead of the generated wording.'),
    state: string('A JSON path into the final state, e.g. "$.record-store.records.record-1.text".'),
    equals: anyValue('state: the value there equals this (deep equality). file: the text equals this.'),
    contains: anyValue(
      'state: the value there contains this (objects: deep subset; lists: some element; strings: substring). file: the text contains this.',
    ),
    exists: boolean('state: whether anything is there. file: whether the file exists.'),
    file: id('A file of the workspace (relative path) as the trial left it, e.g. "src/app.ts".'),
    matches: string('file: a regular expression (JavaScript syntax) the text matches.'),
    fileUnchanged: id('A file of the workspace that must end as it started (still absent if it was).'),
    noChangesOutside: {
      ...list(id('A glob, e.g. "src/**".'), 'Globs of the workspace: no file outside them may change.'),
      minItems: 1,
    },
    workspace: id('The workspace package file criteria read (needed when the world has several).'),
    called: ref('operationFilter', 'Operations that must have happened.'),
    times: {
      description: 'called: how many matching operations (default at least 1).',
      anyOf: [{ type: 'integer', minimum: 0 }, countRange],
    },
    notCalled: ref('operationFilter', 'Operations that must not have happened.'),
    noDuplicateEffects: {
      type: 'object',
      title: '{ packageId?, operationId }',
      description:
        'No logical request of this operation took effect twice (across a crash and its resume): no two successful, non-replayed calls share an idempotency key or an input.',
      properties: {
        packageId: id('The package id (default: any package with this operation).'),
        operationId: id('The operation id.'),
      },
      required: ['operationId'],
      additionalProperties: false,
    },
    noErrors: {
      description: 'No operation ended in an error (except the listed codes).',
      anyOf: [
        { type: 'boolean' },
        {
          type: 'object',
          title: '{ except }',
          properties: { except: list({ type: 'string' }, 'Error codes that do not count.') },
          additionalProperties: false,
        },
      ],
    },
  } satisfies Described<keyof Criterion>,
  additionalProperties: false,
  anyOf: [
    { required: ['state'] },
    { required: ['called'] },
    { required: ['notCalled'] },
    { required: ['noErrors'] },
    { required: ['file'] },
    { required: ['fileUnchanged'] },
    { required: ['noChangesOutside'] },
    { required: ['noDuplicateEffects'] },
  ],
};

const drill: JsonSchema = {
  title: '{ instruction, scenario?, actor?, success, … }',
  description:
    'A task for the agent in a set-up world, with the criteria its outcome is judged by. Run it with runDrills({ drill, agent }).',
  type: 'object',
  properties: {
    description: string('What the drill checks.'),
    instruction: id("The task's instruction, handed to the agent as task.instruction."),
    scenario: id('The named scenario the drill starts from.'),
    actor: id('The actor the drill binding calls as (default: defaultActor).'),
    input: anyValue('Extra task data, handed to the agent as task.input.'),
    toolOverrides: list({ $ref: '#/definitions/toolOverride' }, 'Rules in the drill scope.'),
    success: list({ $ref: '#/definitions/criterion' }, 'Success criteria; all must hold.'),
    trials: positiveInteger('Trials per run (default 1); every trial must pass.'),
    timeoutMs: positiveInteger('Per-trial deadline for the agent (the run ends as timed_out).'),
    crash: {
      type: 'object',
      title: '{ afterOperation } or { atStep }',
      description:
        "Crashes the agent's first attempt of each trial, as if its process died: after the first success of an operation (its answer never arrives) or at its n-th model request. The agent then starts again (runDrills' `resume`) on the same world.",
      properties: {
        afterOperation: ref('operationRef', 'Crash after the first success of this operation.'),
        atStep: positiveInteger("Crash at the agent's n-th model request (it is never answered)."),
      },
      additionalProperties: false,
      anyOf: [{ required: ['afterOperation'] }, { required: ['atStep'] }],
    },
  } satisfies Described<keyof DrillDef>,
  required: ['instruction', 'success'],
  additionalProperties: false,
};

/** `runDrills({ setup })`, validated with the same definitions (per-test rules). */
const setup: JsonSchema = {
  title: '{ scenario?, toolOverrides?, tools? }',
  description: 'Per-test setup of a drill.',
  type: 'object',
  properties: {
    scenario: {
      description:
        'A named scenario, or an inline scenario (a complete starting setup whose rules are per-test).',
      anyOf: [{ type: 'string', minLength: 1 }, { $ref: '#/definitions/scenario' }],
    },
    toolOverrides: list({ $ref: '#/definitions/toolOverride' }, 'Per-test rules.'),
    tools: {
      type: 'object',
      description: 'Tool setup.',
      properties: {
        behaviorOverrides: list(
          {
            type: 'object',
            title: '{ operation, behavior }',
            description: 'Swaps the behavior of one operation.',
            properties: {
              operation: ref('operationRef', 'The operation.'),
              behavior: {
                description:
                  'A built-in, a module (relative to the world file) or the name of an entry of `behaviors`.',
                anyOf: [{ type: 'string', minLength: 1 }, { $ref: '#/definitions/behavior' }],
              },
            },
            required: ['operation', 'behavior'],
            additionalProperties: false,
          },
          'Behaviors swapped for this drill.',
        ),
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

const worldProperties = {
  $schema: string(
    'Where editors find this schema, e.g. "./node_modules/jest-understudy/schemas/world.schema.json".',
  ),
  $comment: string('A note for readers; ignored.'),
  name: id('Name of the world.'),
  description: string('What the world simulates.'),
  seed: { type: 'integer', description: 'Default seed for random faults and ctx.random().' },
  defaultActor: id(
    'Actor of calls that name none (HTTP without the x-understudy-actor header, bind() without actorId).',
  ),
  definitions: map(
    jsonSchema('A JSON Schema.'),
    'JSON Schemas the operations share, as `#/definitions/<name>`.',
  ),
  actors: list({ $ref: '#/definitions/actor' }, 'The actors; when given, permissions are enforced.'),
  packages: {
    ...list({ $ref: '#/definitions/package' }, 'The packages (dependencies) of the world.'),
    minItems: 1,
  },
  behaviors: map({ $ref: '#/definitions/behavior' }, 'Named behaviors, selectable by name.'),
  budgets: list({ $ref: '#/definitions/budget' }, 'Call budgets per run.'),
  idempotency: {
    type: 'object',
    description: 'Idempotency settings.',
    properties: { header: id('HTTP header carrying the key (default "Idempotency-Key").') },
    additionalProperties: false,
  },
  faults: list({ $ref: '#/definitions/fault' }, 'Faults of the baseline world.'),
  events: list({ $ref: '#/definitions/scheduledEvent' }, 'Scheduled events of the baseline world.'),
  toolOverrides: list({ $ref: '#/definitions/toolOverride' }, 'Rules in the world scope (lowest priority).'),
  scenarios: map({ $ref: '#/definitions/scenario' }, 'Named scenarios.'),
  drills: map({ $ref: '#/definitions/drill' }, 'Named drills.'),
} satisfies Described<keyof WorldFile>;

export const worldSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'jest-understudy world file',
  description:
    'A stateful world the agent acts in: packages and their operations (tools), state, behavior, faults, permissions, budgets, tool overrides, scenarios and drills.',
  type: 'object',
  properties: worldProperties,
  patternProperties: {
    '^x-': {
      description:
        'Extension fields, ignored: a place for YAML anchors (`x-record: &record`, then `*record`).',
    },
  },
  required: ['packages'],
  additionalProperties: false,
  definitions: {
    package: packageDef,
    mcp,
    packageState,
    operation,
    operationRef,
    declaredError,
    httpRoute,
    behavior,
    actor,
    budget,
    fault,
    stateChange,
    scheduledEvent,
    ruleWhen,
    outcome,
    toolOverride,
    scenario,
    operationFilter,
    criterion,
    drill,
    setup,
  },
};
