/**
 * Bad input gets the product's own error with the file (or the argument) and the JSON path,
 * from source: fixtures given in memory, hostile file shapes (deep nesting, YAML alias bombs,
 * circular aliases, keys written twice), and what the world loader must refuse.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  createAgentHarness,
  type Fixture,
  FixtureFileError,
  loadFixtures,
  loadGoldenFile,
  understudy,
  WorldFileError,
  writeFixtures,
} from 'jest-understudy';
import { validateFile } from '../../../../src/cli/validators';
import { tempFolder, thrown } from '../../../support/temp';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

const reply = { match: {}, response: { content: 'ok' } };

describe('fixtures given in memory go through the fixture schema', () => {
  it.each([
    [
      [{ match: {}, response: { content: 'x', chunkSize: 0 } }],
      'use()[0].response.chunkSize: must be an integer ≥ 1 (got 0)',
    ],
    [{ fixtures: [null] }, 'use().fixtures[0]: must be { match, response } (got null)'],
    [
      [{ match: {}, response: { toolCalls: 'lookup' } }],
      'use()[0].response.toolCalls: must be a non-empty list of { name, arguments, id? } (got the string "lookup")',
    ],
    [
      [{ match: { turnIndex: '1' }, response: { content: 'x' } }],
      'use()[0].match.turnIndex: must be an integer ≥ 0 (got the string "1") — write 1 without quotes',
    ],
    [
      42,
      'use(): expected fixtures: a list of { match, response }, { fixtures: [ … ] } or a script() builder (got 42)',
    ],
  ])('use(%j) throws FixtureFileError naming the path', (input, message) => {
    const error = thrown(() => understudy.model.use(input as never));
    expect(error).toBeInstanceOf(FixtureFileError);
    expect(error.message).toContain(`understudy.model.use() at ${message}`);
    expect(error.message.split('\n')[0]).toMatch(/^understudy\.model\.use\(\): invalid fixtures: /);
  });

  it('a failed use() registers nothing, not even the valid fixtures beside the bad one', () => {
    understudy.model.use([reply]);
    expect(() =>
      understudy.model.use([reply, { match: {}, response: { content: 'x', chunkSize: 0 } }]),
    ).toThrow(FixtureFileError);
    expect(understudy.model.fixtures).toEqual([reply]);
  });

  it('circular and non-JSON values are issues, not a stack overflow or a silent drop', () => {
    const cyclic: Record<string, unknown> = { match: {}, response: { content: 'x' } };
    (cyclic.response as Record<string, unknown>).self = cyclic;
    expect(thrown(() => understudy.model.use([cyclic as never])).message).toContain(
      'use()[0].response.self: refers to itself (a circular reference)',
    );
    expect(
      thrown(() =>
        understudy.model.use([
          { match: {}, response: { content: 'x', usage: { inputTokens: 1n } } },
        ] as never),
      ).message,
    ).toContain('use()[0].response.usage.inputTokens: must be JSON data (got the BigInt 1n)');
  });

  it('keeps RegExp patterns as written, and copies: changing the argument later changes nothing', async () => {
    const fixture: Fixture = { match: { userMessage: /^hel+o/i }, response: { content: 'hi' } };
    understudy.model.use([fixture]);
    fixture.response.content = 'changed after use()';
    expect(understudy.model.fixtures[0]).toEqual({
      match: { userMessage: /^hel+o/i },
      response: { content: 'hi' },
    });
  });

  it('createAgentHarness({ fixtures }) and harness.run({ fixtures }) are checked the same way', async () => {
    const bad = [{ match: {}, response: { content: 'x', chunkSize: 0 } }] as Fixture[];
    expect(thrown(() => createAgentHarness({ agent: async () => 1, fixtures: bad })).message).toContain(
      'createAgentHarness({ fixtures }) at fixtures[0].response.chunkSize: must be an integer ≥ 1 (got 0)',
    );
    const harness = createAgentHarness({ agent: async () => 1 });
    await expect(harness.run({ input: 'x', fixtures: bad })).rejects.toThrow(
      'harness.run({ fixtures }) at fixtures[0].response.chunkSize: must be an integer ≥ 1 (got 0)',
    );
    expect(harness.lastRun).toBeUndefined();
  });

  it('writeFixtures refuses circular input with an issue, and writes nothing', () => {
    const target = folder.path('out.json');
    const cyclic: Record<string, unknown> = { match: {}, response: { content: 'x' } };
    cyclic.match = cyclic;
    const error = thrown(() => writeFixtures(target, [cyclic as never]));
    expect(error).toBeInstanceOf(FixtureFileError);
    expect(error.message).toContain(`${target} at $.fixtures[0].match: refers to itself`);
    expect(existsSync(target)).toBe(false);
  });
});

describe('hostile file shapes are refused with the file, line and path', () => {
  const nested = (depth: number) => '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);

  it('a fixture nested 2,000 levels deep', () => {
    const file = folder.write(
      'deep.json',
      `[{"match": {}, "response": {"toolCalls": [{"name": "f", "arguments": ${nested(2000)}}]}}]`,
    );
    const error = thrown(() => loadFixtures(file));
    expect(error).toBeInstanceOf(FixtureFileError);
    expect(error.message).toContain(
      `${file} at $[0].response.toolCalls[0].arguments.a.a.a.a.a: nested more than 100 levels deep`,
    );
  });

  it('a world nested 100,000 levels deep', () => {
    const file = folder.write(
      'deep.world.json',
      `{"packages": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    );
    const error = thrown(() => understudy.world.load(file));
    expect(error).toBeInstanceOf(WorldFileError);
    expect(error.message).toContain(`${file} at $.packages[0][0][0]`);
    expect(error.message).toContain('nested more than 100 levels deep');
  });

  it('a 1 KB YAML alias bomb stops at the expansion cap', () => {
    const levels = 'abcdefghi'.split('');
    const text = `${levels
      .map(
        (k, i) =>
          `x-${k}: &${k} [${
            i === 0
              ? Array(9).fill('lol').join(',')
              : Array(9)
                  .fill(`*${levels[i - 1]}`)
                  .join(',')
          }]`,
      )
      .join(
        '\n',
      )}\nfixtures:\n  - match: {}\n    response: { toolCalls: [{ name: f, arguments: { v: *i } }] }\n`;
    expect(text.length).toBeLessThan(1024);
    const error = thrown(() => loadFixtures(folder.write('bomb.yaml', text)));
    expect(error).toBeInstanceOf(FixtureFileError);
    expect(error.message).toMatch(
      /bomb\.yaml:\d+:\d+ at \$\["x-\w"\](\[\d+\])+: YAML aliases expand the document past 100,000 repeated values/,
    );
  });

  it('a YAML alias inside itself', () => {
    const file = folder.write(
      'circular.yaml',
      'fixtures: &all\n  - match: {}\n    response: { content: *all }\n',
    );
    expect(thrown(() => loadFixtures(file)).message).toContain(
      `${file}:3:17 at $.fixtures[0].response.content: refers to itself (a circular reference)`,
    );
  });

  it('a JSON key written twice, with its line and path (YAML already refuses them)', () => {
    const file = folder.write(
      'twice.json',
      '{\n  "fixtures": [\n    { "match": {}, "response": { "content": "a",\n      "content": "b" } }\n  ]\n}\n',
    );
    const error = thrown(() => loadFixtures(file));
    expect(error.code).toBe('FIXTURE_PARSE_ERROR');
    expect(error.message).toContain(`${file}:4:7 at $.fixtures[0].response.content: duplicate key "content"`);
  });

  it('a cassette left with merge-conflict markers says so', () => {
    const file = folder.write(
      'x.cassette.json',
      '<<<<<<< HEAD\n{"fixtures": []}\n=======\n{"fixtures": [{}]}\n>>>>>>> main\n',
    );
    expect(thrown(() => loadFixtures(file)).message).toContain(
      `${file}:1:1 at $: invalid JSON: Unexpected token '<'`,
    );
    expect(thrown(() => loadFixtures(file)).message).toContain('the file has merge-conflict markers');
  });
});

describe('the world loader refuses what would never work', () => {
  const world = (over: {
    state?: string;
    path?: string;
    baseURL?: string;
    allow?: string;
    collection?: string;
  }) =>
    folder.write(
      'shop.world.yaml',
      `packages:
  - id: shop
    kind: external
    bindings: [direct, http]
    http: { baseURL: ${over.baseURL ?? 'https://shop.example.test'} }
    state: ${over.state ?? '{ orders: {} }'}
    operations:
      - id: orders.get
        input: { type: object, properties: { id: { type: string } } }
        errors: [{ code: NOT_FOUND, status: 404 }]
        http: { method: GET, path: '${over.path ?? '/orders/{id}'}' }
        behavior: { builtin: get, collection: ${over.collection ?? 'orders'} }
actors:
  - id: agent
    allow: ['${over.allow ?? 'shop/*'}']
`,
    );
  const problem = (file: string) => {
    const error = thrown(() => understudy.world.load(file));
    expect(error).toBeInstanceOf(WorldFileError);
    return error.message;
  };

  it('accepts the world these variations start from', () => {
    expect(() => understudy.world.load(world({}))).not.toThrow();
  });

  it.each([
    [
      { collection: 'ordres' },
      '$.packages[0].operations[0].behavior.collection: package "shop" has no collection "ordres" — did you mean "orders"?',
    ],
    [{ allow: 'sohp/*' }, '$.actors[0].allow[0]: unknown package "sohp" in "sohp/*" — did you mean "shop"?'],
    [{ allow: 'shop/orders.list' }, '$.actors[0].allow[0]: package "shop" has no operation "orders.list"'],
    [
      { path: '/orders/{id' },
      '$.packages[0].operations[0].http.path: malformed path template "/orders/{id": "{" without a closing "}" in "{id"',
    ],
    [
      { baseURL: 'https://api.anthropic.com/v1' },
      '$.packages[0].http.baseURL: api.anthropic.com is the Anthropic API',
    ],
  ])('%j', (over, message) => {
    expect(problem(world(over))).toContain(message);
  });

  it('a package without state may read what its create / upsert behaviors write', () => {
    const file = folder.write(
      'log.world.yaml',
      `packages:
  - id: log
    kind: internal
    bindings: [direct]
    operations:
      - id: log.write
        errors: [{ code: CONFLICT, status: 409 }]
        behavior: { builtin: create, collection: entries, generate: e- }
      - id: log.read
        errors: [{ code: NOT_FOUND, status: 404 }]
        behavior: { builtin: get, collection: entris }
`,
    );
    expect(problem(file)).toContain('package "log" has no collection "entris" — did you mean "entries"?');
  });
});

describe('understudy validate', () => {
  it('checks a world without running its behavior modules', () => {
    folder.write(
      'side.js',
      "require('fs').writeFileSync(__dirname + '/RAN', 'x'); exports.default = () => 1;\n",
    );
    const file = folder.write(
      'side.world.yaml',
      'packages:\n  - id: p\n    kind: internal\n    bindings: [direct]\n    operations:\n      - { id: p.run, behavior: { module: ./side.js } }\n',
    );
    expect(validateFile(file)).toEqual({
      kind: 'world',
      ok: true,
      summary: '1 package (behavior modules resolved, not run)',
    });
    expect(existsSync(folder.path('RAN'))).toBe(false);
  });

  it("validates a golden file's fixture files, not only that they exist", () => {
    const fixtures = folder.write(
      'bad.fixture.json',
      '[{"match": {}, "response": {"content": "x", "chunkSize": 0}}]',
    );
    const golden = folder.write(
      'g.golden.yaml',
      'tasks:\n  - id: t\n    input: hi\n    fixtures: bad.fixture.json\n',
    );
    const verdict = validateFile(golden);
    expect(verdict).toMatchObject({ kind: 'golden', ok: false });
    expect((verdict as { issues: Array<{ file: string; path: string; message: string }> }).issues).toEqual([
      expect.objectContaining({
        file: golden,
        path: '$.tasks[0].fixtures',
        message: expect.stringContaining('is not valid'),
      }),
      expect.objectContaining({ file: fixtures, path: '$[0].response.chunkSize' }),
    ]);
    expect(() => loadGoldenFile(golden)).toThrow('chunkSize: must be an integer ≥ 1 (got 0)');
  });
});
