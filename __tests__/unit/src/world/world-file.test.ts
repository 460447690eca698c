/**
 * World files: the published schema, and every kind of bad input — each error names the
 * file, the line where it can, the JSON path, what was expected and a likely fix; a world
 * with any problem is refused whole.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import Ajv from 'ajv';
import { understudy, WorldFileError } from 'jest-understudy';
import type { JsonSchema } from '../../../../src/file-format/json-schema';
import { worldSchema } from '../../../../src/world/world.schema';
import { tempFolder, thrown } from '../../../support/temp';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

/** A small valid world as YAML lines, to break one piece at a time. */
const WORLD = `name: shop
packages:
  - id: orders
    kind: external
    bindings: [direct]
    state:
      orders:
        o-1: { id: o-1, total: 10 }
    operations:
      - id: orders.get
        input:
          type: object
          properties: { id: { type: string } }
          required: [id]
          additionalProperties: false
        output:
          type: object
          properties: { id: { type: string }, total: { type: integer } }
        errors:
          - { code: NOT_FOUND, status: 404 }
          - { code: BUSY, status: 503, retryable: true }
        behavior: { builtin: get, collection: orders }
scenarios:
  quiet: {}
drills:
  look:
    instruction: Look up o-1.
    scenario: quiet
    success:
      - called: { packageId: orders, operationId: orders.get }
`;

function load(name: string, text: string): WorldFileError {
  const file = folder.write(name, text);
  const error = thrown(() => understudy.world.load(file));
  if (!(error instanceof WorldFileError)) throw error;
  return error;
}

const withTail = (tail: string) => `${WORLD}${tail}`;

describe('schemas/world.schema.json', () => {
  it('is exactly what src/world/world.schema.ts defines (run scripts/write-schemas.mjs after changing it)', () => {
    const committed = JSON.parse(
      readFileSync(join(__dirname, '..', '..', '..', '..', 'schemas', 'world.schema.json'), 'utf8'),
    );
    expect(committed).toStrictEqual(JSON.parse(JSON.stringify(worldSchema)));
  });

  it('compiles with a plain strict ajv', () => {
    expect(() =>
      new Ajv({ allowUnionTypes: true, strictRequired: false }).compile(worldSchema),
    ).not.toThrow();
  });

  it('describes every property (it doubles as the documentation)', () => {
    const undescribed: string[] = [];
    const visit = (schema: JsonSchema, where: string) => {
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (!property.description) undescribed.push(`${where}.${name}`);
        visit(property, `${where}.${name}`);
      }
      if (schema.items) visit(schema.items, `${where}[]`);
    };
    for (const [name, definition] of Object.entries(worldSchema.definitions ?? {})) {
      if (!definition.description) undescribed.push(name);
      visit(definition, name);
    }
    visit(worldSchema, '$');
    expect(undescribed).toEqual([]);
  });

  it('accepts the worlds in the repository', () => {
    for (const file of [
      'fixtures/worlds/records.world.yaml',
      'fixtures/worlds/notes.world.yaml',
      'examples/records-agent/records.world.yaml',
    ]) {
      expect(() => understudy.world.load(join(__dirname, '..', '..', '..', '..', file))).not.toThrow();
    }
  });
});

describe('bad world files', () => {
  it('the small world used below is valid', () => {
    expect(understudy.world.load(folder.write('ok.world.yaml', WORLD)).name).toBe('shop');
  });

  it('invalid YAML: file, line, column', () => {
    const error = load('bad.world.yaml', 'name: x\npackages: [\n  - id: a\n');
    expect(error.code).toBe('WORLD_PARSE_ERROR');
    expect(error.issues[0]).toMatchObject({
      file: folder.path('bad.world.yaml'),
      path: '$',
      line: expect.any(Number),
    });
    expect(error.message).toMatch(
      /^World file .*bad\.world\.yaml: a problem\n {2}.*bad\.world\.yaml:\d+:\d+ at \$: invalid YAML: /,
    );
  });

  it('invalid JSON, an empty file, an unknown extension, a missing file', () => {
    expect(load('bad.world.json', '{"packages": [}').message).toMatch(
      /bad\.world\.json:1:\d+ at \$: invalid JSON: /,
    );
    expect(load('empty.world.yaml', '  \n').message).toContain(
      'at $: the file is empty — a world file declares at least "packages"',
    );
    expect(load('world.toml', 'x').message).toContain(
      'unsupported file extension ".toml" — world files end in .yaml, .yml or .json',
    );
    const missing = thrown(() => understudy.world.load(folder.path('nope.world.yaml'))) as WorldFileError;
    expect(missing.code).toBe('WORLD_READ_ERROR');
    expect(missing.message).toContain('nope.world.yaml at $: the file does not exist');
  });

  it('not an object at the root', () => {
    expect(load('list.world.json', '[1, 2]').message).toContain(
      'at $: a world file must be an object with "packages" (got a list)',
    );
  });

  it('an unknown property, with the name that was meant', () => {
    const error = load('typo.world.yaml', withTail('toolOverides: []\n'));
    expect(error.issues).toEqual([
      {
        code: 'WORLD_INVALID',
        file: folder.path('typo.world.yaml'),
        path: '$.toolOverides',
        line: 31,
        column: 1,
        message: 'unknown property "toolOverides"',
        suggestion: 'did you mean "toolOverrides"?',
      },
    ]);
    expect(error.message).toContain(
      `${folder.path('typo.world.yaml')}:31:1 at $.toolOverides: unknown property "toolOverides" — did you mean "toolOverrides"?`,
    );
    expect(
      load(
        'alias.world.yaml',
        withTail(
          'toolOverrides:\n  - operation: { packageId: orders, operationId: orders.get }\n    when: { args: { id: o-1 } }\n    outcome: { kind: original }\n',
        ),
      ).message,
    ).toContain('at $.toolOverrides[0].when.args: unknown property "args" — did you mean "arguments"?');
  });

  it('a wrong type: what was expected and the fix', () => {
    const error = load(
      'type.world.yaml',
      withTail(
        "toolOverrides:\n  - operation: { packageId: orders, operationId: orders.get }\n    times: '1'\n    outcome: { kind: original }\n",
      ),
    );
    expect(error.issues[0]).toMatchObject({
      path: '$.toolOverrides[0].times',
      line: 33,
      message: 'must be an integer ≥ 1 (got the string "1")',
      suggestion: 'write 1 without quotes',
    });
    expect(load('enum.world.yaml', WORLD.replace('kind: external', 'kind: externl')).message).toContain(
      'at $.packages[0].kind: must be one of "external", "internal", "service", "workspace" (got the string "externl") — did you mean "external"?',
    );
  });

  it('a missing required property, with a hint', () => {
    const error = load(
      'missing.world.yaml',
      withTail('toolOverrides:\n  - operation: { packageId: orders, operationId: orders.get }\n'),
    );
    expect(error.message).toContain(
      'at $.toolOverrides[0]: missing required property "outcome" — give it { "kind": "return", "value": … }, { "kind": "error", "code": "…" } or { "kind": "original" }',
    );
    const noCode = load(
      'nocode.world.yaml',
      withTail(
        'toolOverrides:\n  - operation: { packageId: orders, operationId: orders.get }\n    outcome: { kind: error }\n',
      ),
    );
    expect(noCode.message).toContain('at $.toolOverrides[0].outcome: missing required property "code"');
    const http = load('http.world.yaml', WORLD.replace('bindings: [direct]', 'bindings: [direct, http]'));
    expect(http.message).toContain(
      'at $.packages[0]: missing required property "http" — a package with an http binding is served at "http": { "baseURL": "https://…" }',
    );
  });

  describe('dangling references are refused at load', () => {
    it('an override naming an unknown operation or package (with suggestions)', () => {
      const error = load(
        'ref.world.yaml',
        withTail(
          'toolOverrides:\n  - operation: { packageId: orders, operationId: orders.gett }\n    outcome: { kind: original }\n' +
            '  - operation: { packageId: order, operationId: orders.get }\n    outcome: { kind: original }\n',
        ),
      );
      expect(error.code).toBe('WORLD_REFERENCE');
      expect(error.message).toContain('ref.world.yaml:32:');
      expect(error.message).toContain(
        'at $.toolOverrides[0].operation.operationId: package "orders" has no operation "orders.gett" — did you mean "orders.get"?',
      );
      expect(error.message).toContain(
        'at $.toolOverrides[1].operation.packageId: unknown package "order" — did you mean "orders"?',
      );
    });

    it('an error outcome with a code the operation does not declare', () => {
      const error = load(
        'code.world.yaml',
        withTail(
          'toolOverrides:\n  - operation: { packageId: orders, operationId: orders.get }\n    outcome: { kind: error, code: BUZY }\n',
        ),
      );
      expect(error.message).toContain(
        'at $.toolOverrides[0].outcome.code: orders/orders.get does not declare the error "BUZY" — did you mean "BUSY"?',
      );
    });

    it('a return value the output schema rejects', () => {
      const error = load(
        'value.world.yaml',
        withTail(
          'toolOverrides:\n  - operation: { packageId: orders, operationId: orders.get }\n    outcome: { kind: return, value: { total: ten } }\n',
        ),
      );
      expect(error.message).toContain(
        'at $.toolOverrides[0].outcome.value: does not match the output schema of orders/orders.get: $.total must be integer',
      );
    });

    it('a drill naming an unknown scenario or actor; a criterion naming an unknown operation', () => {
      const error = load(
        'drill.world.yaml',
        WORLD.replace('scenario: quiet', 'scenario: quite\n    actor: bot').replace(
          'operationId: orders.get }\n',
          'operationId: orders.list }\n',
        ) + 'actors:\n  - id: agent\n    allow: ["*"]\n',
      );
      expect(error.message).toContain(
        'at $.drills.look.scenario: unknown scenario "quite" — did you mean "quiet"?',
      );
      expect(error.message).toContain('at $.drills.look.actor: unknown actor "bot" — known actors: "agent"');
      expect(error.message).toContain(
        'at $.drills.look.success[0].called.operationId: package "orders" has no operation "orders.list"',
      );
    });

    it('behavior modules that do not exist, or lack the handler', () => {
      folder.write(
        'orders.behavior.ts',
        'export function getOrder(ctx: { input: unknown }) { return ctx.input; }\n',
      );
      const missing = load(
        'mod1.world.yaml',
        WORLD.replace('{ builtin: get, collection: orders }', '{ module: ./nope.ts }'),
      );
      expect(missing.code).toBe('WORLD_MODULE_ERROR');
      expect(missing.message).toContain(
        'at $.packages[0].operations[0].behavior.module: behavior module "./nope.ts": ',
      );
      expect(missing.message).toContain(
        'does not exist (or is not a module Jest can resolve) — module paths are relative to the world file',
      );
      const noExport = load(
        'mod2.world.yaml',
        WORLD.replace(
          '{ builtin: get, collection: orders }',
          '{ module: ./orders.behavior.ts, export: getOrdr }',
        ),
      );
      expect(noExport.message).toContain('at $.packages[0].operations[0].behavior.export: behavior module');
      expect(noExport.message).toContain('has no handler "getOrdr" — did you mean "export": "getOrder"?');
      const throwsOnLoad = folder.write('broken.behavior.ts', 'throw new Error("cannot start");\n');
      void throwsOnLoad;
      expect(
        load(
          'mod3.world.yaml',
          WORLD.replace('{ builtin: get, collection: orders }', '{ module: ./broken.behavior.ts }'),
        ).message,
      ).toContain('loading it threw: cannot start');
    });

    it('a built-in whose failure code the operation does not declare; a key that is not an input property', () => {
      const error = load(
        'builtin.world.yaml',
        WORLD.replace('          - { code: NOT_FOUND, status: 404 }\n', '').replace(
          '{ builtin: get, collection: orders }',
          '{ builtin: get, collection: orders, key: orderId }',
        ),
      );
      expect(error.message).toContain(
        'the built-in get fails with NOT_FOUND (no such record), which orders/orders.get does not declare — declare it in the operation\'s "errors", e.g. { "code": "NOT_FOUND", "status": 404 }',
      );
      expect(error.message).toContain(
        'at $.packages[0].operations[0].behavior.key: the key field "orderId" is not a property of orders/orders.get\'s input',
      );
    });

    it('a schema $ref to a definition that does not exist; duplicate ids', () => {
      const error = load(
        'defs.world.yaml',
        WORLD.replace(
          'output:\n          type: object\n          properties: { id: { type: string }, total: { type: integer } }',
          "output: { $ref: '#/definitions/order' }",
        ) +
          'definitions:\n  orders: { type: object }\ntoolOverrides:\n  - { id: a, operation: { packageId: orders, operationId: orders.get }, outcome: { kind: original } }\n  - { id: a, operation: { packageId: orders, operationId: orders.get }, outcome: { kind: original } }\n',
      );
      expect(error.message).toContain(
        'at $.packages[0].operations[0].output: the schema refers to #/definitions/order, which the world\'s "definitions" do not have — did you mean "orders"?',
      );
      expect(error.message).toContain(
        'at $.toolOverrides[1].id: duplicate rule id "a" in this scope (also at index 0)',
      );
    });
  });

  it('lists every problem of the file at once, in line order', () => {
    const error = load(
      'many.world.yaml',
      WORLD.replace('kind: external', 'kind: 3').replace('scenario: quiet', 'scenario: noisy') + 'extra: 1\n',
    );
    expect(error.issues.map((i) => i.path)).toEqual(['$.packages[0].kind', '$.extra']);
    // Reference problems are reported once the schema is satisfied (they need a well-formed world).
    const refs = load(
      'refs.world.yaml',
      WORLD.replace('scenario: quiet', 'scenario: noisy').replace(
        'operationId: orders.get }\n',
        'operationId: nope }\n',
      ),
    );
    expect(refs.issues.map((i) => [i.line, i.path])).toEqual([
      [28, '$.drills.look.scenario'],
      [30, '$.drills.look.success[0].called.operationId'],
    ]);
  });

  it('nothing is half-loaded: a refused world leaves the loaded one in place, and no module runs', () => {
    understudy.world.load(folder.write('good.world.yaml', WORLD));
    folder.write('side-effect.ts', '(globalThis as any).__sideEffect = true;\nexport default () => null;\n');
    load(
      'bad.world.yaml',
      WORLD.replace('{ builtin: get, collection: orders }', '{ module: ./side-effect.ts }').replace(
        'scenario: quiet',
        'scenario: loud',
      ),
    );
    expect(understudy.world.name).toBe('shop');
    expect(understudy.world.state.orders.orders['o-1']).toEqual({ id: 'o-1', total: 10 });
    expect((globalThis as { __sideEffect?: boolean }).__sideEffect).toBeUndefined();
  });
});

describe('packages served over MCP', () => {
  /** A world with one MCP package (its `mcp` block and its operations given as YAML lines). */
  const mcpWorld = (mcp: string, operations: string, extra = '') => `name: tools
definitions:
  count: { type: integer }
packages:
  - id: tools
    kind: external
    bindings: [mcp]
${mcp}
    operations:
${operations}
${extra}`;
  const op = (id: string, more = '') => `      - id: ${id}\n${more}`;
  const problems = (text: string) =>
    load('mcp.world.yaml', text).issues.map(
      (i) => `${i.path}: ${i.message}${i.suggestion ? ` — ${i.suggestion}` : ''}`,
    );

  it('a valid one loads: a url, a response mode, an idempotency argument, several tools', () => {
    const text = mcpWorld(
      '    mcp: { url: https://tools.example.test/mcp, response: json, idempotencyKey: requestId }',
      [op('tools.a'), op('tools.b', '        toolNames: [b_tool]\n')].join(''),
    );
    expect(understudy.world.load(folder.write('ok.world.yaml', text)).name).toBe('tools');
  });

  it('its endpoint: an absolute http(s) URL, not a provider host, one per package; no mcp block without the binding', () => {
    expect(problems(mcpWorld('    mcp: { url: /mcp }', op('tools.a')))).toEqual([
      '$.packages[0].mcp.url: not an absolute http(s) URL: "/mcp" — e.g. "https://tools.example.test/mcp"',
    ]);
    expect(problems(mcpWorld('    mcp: { url: https://api.openai.com/mcp }', op('tools.a')))).toEqual([
      '$.packages[0].mcp.url: api.openai.com is the OpenAI API: the mock model answers every request to it, so this MCP server would never be served — give the package a host of its own, e.g. "https://tools.example.test/mcp"',
    ]);
    const twice = `${mcpWorld('    mcp: { url: https://tools.example.test/mcp }', op('tools.a'))}
  - id: more
    kind: external
    bindings: [mcp]
    mcp: { url: https://tools.example.test/mcp/ }
    operations:
      - id: more.a
`.replace(/\n\n {2}- id: more/, '\n  - id: more');
    expect(problems(twice)).toEqual([
      '$.packages[1].mcp.url: https://tools.example.test/mcp is already the MCP endpoint of package "tools" — each MCP server has a URL of its own',
    ]);
    const unbound = mcpWorld('    mcp: { url: https://tools.example.test/mcp }', op('tools.a')).replace(
      'bindings: [mcp]',
      'bindings: [direct]',
    );
    expect(problems(unbound)).toEqual([
      '$.packages[0].mcp: package "tools" has no "mcp" binding, so this MCP server is never served — add "mcp" to the package\'s bindings',
    ]);
    expect(
      problems(mcpWorld('    mcp: { url: https://tools.example.test/mcp, response: stream }', op('tools.a'))),
    ).toEqual(['$.packages[0].mcp.response: must be one of "sse", "json" (got the string "stream")']);
  });

  it('its tools: valid, distinct names; object inputs; an idempotency argument that is not an input property', () => {
    expect(
      problems(
        mcpWorld(
          '    mcp: { idempotencyKey: id }',
          [
            op('tools.a', '        toolNames: [save record]\n'),
            op('tools.b'),
            op('tools_b'),
            op('tools.c', '        input: { $ref: "#/definitions/count" }\n'),
            op('tools.d', '        input: { type: object, properties: { id: { type: string } } }\n'),
          ].join(''),
        ),
      ),
    ).toEqual([
      '$.packages[0].mcp.idempotencyKey: "id" is also an input property of operation "tools.d", whose input would lose it — name another argument, or key the operation by that input field with "idempotency": { "keyFrom": "id" }',
      '$.packages[0].operations[0].toolNames[0]: "save record" is not a valid MCP tool name: 1 to 128 letters, digits, "_", "-" or "." — give the operation a "toolNames" entry such as "save_record" (its first entry names the tool)',
      '$.packages[0].operations[2].id: the MCP tool name "tools_b" is already the tool of operation "tools.b" — give one of them a "toolNames" entry of its own (its first entry names the tool)',
      '$.packages[0].operations[3].input: MCP tool arguments are a JSON object, so the input schema must be an object schema ("type": "object")',
    ]);
  });
});
