/**
 * How world-file problems are worded: the fixture files' issue helpers
 * (src/file-format/issues.ts) with the world schema's definitions, hints and aliases.
 */
import type { IssueWording } from '../file-format/issues';
import { suggestName } from '../file-format/suggest';

/** Names people write in world files, mapped to what they mean, most likely first. */
const ALIASES: Record<string, readonly string[]> = {
  overrides: ['toolOverrides'],
  rules: ['toolOverrides'],
  mocks: ['toolOverrides'],
  stubs: ['toolOverrides'],
  ops: ['operations'],
  tools: ['operations', 'toolNames'],
  tool: ['toolNames', 'operation'],
  args: ['arguments'],
  params: ['arguments', 'input'],
  parameters: ['input', 'arguments'],
  input: ['arguments'],
  inputs: ['arguments', 'input'],
  actor: ['actorId', 'actors', 'defaultActor'],
  actorID: ['actorId'],
  count: ['times', 'maxCalls'],
  limit: ['maxCalls', 'times'],
  max: ['maxCalls'],
  calls: ['maxCalls', 'onCalls'],
  result: ['outcome', 'value'],
  response: ['outcome'],
  returns: ['value'],
  return: ['value'],
  type: ['kind', 'builtin'],
  error: ['errors', 'code'],
  errorCode: ['code'],
  url: ['baseURL'],
  handler: ['behavior', 'export'],
  impl: ['behavior'],
  implementation: ['behavior'],
  schema: ['input', 'output'],
  inputSchema: ['input'],
  outputSchema: ['output'],
  at: ['atMs'],
  after: ['atMs', 'ms'],
  delay: ['ms'],
  delayMs: ['ms'],
  latencyMs: ['ms'],
  probability: ['rate'],
  chance: ['rate'],
  criteria: ['success'],
  expect: ['success'],
  assertions: ['success'],
  task: ['instruction'],
  prompt: ['instruction'],
  initialState: ['state'],
  data: ['state'],
  package: ['packageId', 'packages'],
  pkg: ['packageId'],
  op: ['operationId'],
  operationName: ['operationId'],
  name: ['id'],
};

const NONE_OF: Record<string, { message: string; suggestion: string }> = {
  'builtin,module': {
    message: 'the behavior names neither a built-in nor a module',
    suggestion: 'give it "builtin" (get, list, create, upsert, delete) with a "collection", or "module"',
  },
  'delete,merge,set': {
    message: 'the state change says nothing to do',
    suggestion: 'give it "set", "merge" or "delete": true',
  },
  'apply,emit,module': {
    message: 'the scheduled event does nothing',
    suggestion: 'give it "emit", "apply" or "module"',
  },
  'called,noErrors,notCalled,state': {
    message: 'the criterion checks nothing',
    suggestion: 'give it "state" (with equals / contains / exists), "called", "notCalled" or "noErrors"',
  },
};

export const worldDialect: IssueWording = {
  // The schema is built only for a file with problems: the compile steps use this module's
  // suggestions in every file that loads a world.
  get definitions() {
    return (require('./world.schema') as typeof import('./world.schema')).worldSchema.definitions ?? {};
  },
  rootType: (got) => `a world file must be an object with "packages" (got ${got})`,
  missingHints: {
    packages: 'a world declares its packages: "packages": [ { "id", "kind", "bindings", "operations" } ]',
    operations: 'list the operations: "operations": [ { "id": "…" } ]',
    outcome:
      'give it { "kind": "return", "value": … }, { "kind": "error", "code": "…" } or { "kind": "original" }',
    operation: 'name it: "operation": { "packageId": "…", "operationId": "…" }',
    http: 'a package with an http binding is served at "http": { "baseURL": "https://…" }',
    collection: 'a built-in works on a collection of the package state: "collection": "records"',
    code: 'name a code the operation declares in "errors"',
    value: 'a "return" outcome needs the "value" to return',
    ms: 'a latency fault needs "ms"',
    instruction: "a drill needs the task's instruction",
    success: 'a drill needs its success criteria: "success": [ { "state": "$.…", "equals": … } ]',
    bindings: 'say how the agent reaches it: "bindings": ["direct"] (or "http", "mcp")',
    kind: 'one of "external", "internal", "service"',
  },
  noneOf(names) {
    const known = NONE_OF[[...names].sort().join(',')];
    return known ?? { message: `needs one of ${names.map((name) => JSON.stringify(name)).join(', ')}` };
  },
  aliases: ALIASES,
};

/** The candidate `name` most likely stands for (typos and case only: no aliases for values). */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  return suggestName(name, [...candidates], {});
}

/** `did you mean "x"?`, or the list of what exists. */
export function didYouMean(name: string, candidates: Iterable<string>, what: string): string {
  const all = [...candidates];
  const meant = closest(name, all);
  if (meant) return `did you mean ${JSON.stringify(meant)}?`;
  if (all.length === 0) return `there are no ${what}`;
  const shown = all.slice(0, 8).map((c) => JSON.stringify(c));
  return `known ${what}: ${shown.join(', ')}${all.length > 8 ? ', …' : ''}`;
}
