/**
 * Every loader, on any input: it returns, or it throws the product's own error type with
 * issues that name the file (or the argument) and a JSON path. Never a raw error, never a
 * hang, never partial state: a failed `use()` registers nothing, a failed world load keeps
 * the previous world. Seeded, so a failure reproduces (fast-check prints the seed and path).
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  FixtureFileError,
  GoldenFileError,
  loadFixtures,
  loadGoldenFile,
  script,
  understudy,
  WorldFileError,
} from 'jest-understudy';
import { dump } from 'js-yaml';
import { OptionsError, resolveOptions } from '../../../../environment/options';
import { validateFile } from '../../../../src/cli/validators';
import type { FileIssue } from '../../../../src/file-format/issue';
import { tempFolder } from '../../../support/temp';

const SEED = 20260901;
const RUNS = 60;
const settings = { seed: SEED, numRuns: RUNS };

let folder: ReturnType<typeof tempFolder>;
beforeAll(() => {
  folder = tempFolder();
});
afterAll(() => folder.remove());

// ---------------------------------------------------------------- inputs

const key = fc.oneof(
  fc.constantFrom(
    'match',
    'response',
    'fixtures',
    'content',
    'toolCalls',
    'chunkSize',
    'userMessage',
    'turnIndex',
    'name',
    'arguments',
    'error',
    'message',
    'status',
    'packages',
    'id',
    'kind',
    'bindings',
    'operations',
    'tasks',
    'input',
    'behavior',
    'http',
    'path',
    'actors',
    'allow',
    '__proto__',
    'constructor',
  ),
  fc.string({ maxLength: 8 }),
);

/** JSON-like values with the product's own keys, so inputs get past the first checks. */
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(key, tie('node'), { maxKeys: 5 }),
  ),
})).node;

const fixtureLike = fc.record(
  {
    match: fc.oneof(fc.constant({}), fc.dictionary(key, value, { maxKeys: 3 }), value),
    response: fc.oneof(
      fc.record({ content: fc.oneof(fc.string(), value) }, { requiredKeys: [] }),
      fc.record(
        {
          toolCalls: fc.oneof(
            fc.array(fc.record({ name: fc.string(), arguments: value }, { requiredKeys: [] }), {
              maxLength: 2,
            }),
            value,
          ),
          chunkSize: fc.oneof(fc.integer({ min: -2, max: 4 }), value),
          error: value,
        },
        { requiredKeys: [] },
      ),
      value,
    ),
    id: value,
  },
  { requiredKeys: [] },
);

const fixturesData = fc.oneof(
  fc.array(fixtureLike, { maxLength: 3 }),
  fc.record({ fixtures: fc.array(fixtureLike, { maxLength: 3 }) }),
  value,
);

const deep = (depth: number, leaf: string) => '['.repeat(depth) + leaf + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);

/** Where a loader's own format nests free-form data, for texts nested deeper than anything reads. */
const NESTS = {
  fixtures: (inner: string) =>
    `[{"match": {}, "response": {"toolCalls": [{"name": "f", "arguments": ${inner}}]}}]`,
  world: (inner: string) =>
    `{"packages": [{"id": "s", "kind": "external", "bindings": ["direct"], "operations": [], "state": {"c": ${inner}}}]}`,
  golden: (inner: string) => `{"tasks": [{"id": "t", "input": ${inner}}]}`,
};

/** Texts of a file: serialised data, broken text, hostile shapes. */
const text = (data: fc.Arbitrary<unknown>, nest: (inner: string) => string) =>
  fc.oneof(
    fc.integer({ min: 90, max: 100_000 }).map((n) => nest(n % 2 ? deepObject(n) : deep(n, '1'))),
    data.map((d) => `{"fixtures": ${JSON.stringify(d) ?? 'null'}, "fixtures": []}`),
    data.map((d) => JSON.stringify(d) ?? 'null'),
    data.map((d) => dump(d, { noRefs: true })),
    fc.tuple(data, fc.nat(), fc.string({ maxLength: 3 })).map(([d, at, insert]) => {
      const t = JSON.stringify(d) ?? '';
      return t.slice(0, at % (t.length + 1)) + insert + t.slice(at % (t.length + 1));
    }),
    fc.string({ maxLength: 40 }),
    fc.integer({ min: 90, max: 3000 }).map((n) => deep(n, '{}')),
    fc.constantFrom(
      '',
      '\ufeff',
      '{"fixtures": [], "fixtures": []}',
      '<<<<<<< HEAD\n[]\n=======\n{}\n>>>>>>> x\n',
      'a: &a [*a]\n',
      `a: &a [x,x,x,x,x,x,x,x,x]\n${'bcdefgh'
        .split('')
        .map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`)
        .join('\n')}\n`,
      '- !!js/function "() => 1"\n',
      `${'abcdefgh'
        .split('')
        .map(
          (k, i) =>
            `x-${k}: &${k} [${
              i === 0
                ? 'x,x,x,x,x,x,x,x,x'
                : Array(9)
                    .fill(`*${'abcdefgh'[i - 1]}`)
                    .join(',')
            }]`,
        )
        .join(
          '\n',
        )}\nfixtures:\n  - match: {}\n    response: { toolCalls: [{ name: f, arguments: { v: *h } }] }\n`,
      '%YAML 1.2\n---\n[]\n...\n---\n[]\n',
    ),
  );

let files = 0;
const write = (extension: string, content: string) => folder.write(`case-${++files}.${extension}`, content);

// ---------------------------------------------------------------- expectations

/** Every issue names where (a file or the argument) and a JSON path. */
function expectIssues(issues: readonly FileIssue[], where: string, root: string): void {
  expect(issues.length).toBeGreaterThan(0);
  for (const issue of issues) {
    expect(issue.file).toBe(where);
    expect(issue.path.startsWith(root)).toBe(true);
    expect(typeof issue.message).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

/** The call returns, or throws `type` (nothing else); what it throws is handed to `check`. */
function outcome<E extends Error>(call: () => unknown, type: new (...args: never[]) => E): E | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (!(error instanceof type)) throw error;
    return error;
  }
}

// ---------------------------------------------------------------- properties

describe('fixture files (JSON, YAML) and cassettes', () => {
  it.each(['json', 'yaml'])(
    'load as fixtures or throw FixtureFileError naming the file and a path (.%s)',
    (ext) => {
      fc.assert(
        fc.property(text(fixturesData, NESTS.fixtures), (content) => {
          const file = write(ext, content);
          const error = outcome(() => loadFixtures(file), FixtureFileError);
          if (error) expectIssues(error.issues, file, '$');
        }),
        settings,
      );
    },
  );

  it('a key written twice never loads, wherever it is', () => {
    fc.assert(
      fc.property(fixturesData, fc.string({ maxLength: 6 }), (data, content) => {
        for (const twice of [
          `{"fixtures": ${JSON.stringify(data) ?? 'null'}, "fixtures": []}`,
          `[{"match": {}, "response": {"content": "a", "content": ${JSON.stringify(content)}}}]`,
        ]) {
          const error = outcome(() => loadFixtures(write('json', twice)), FixtureFileError);
          expect(error?.message).toMatch(/duplicate key "(fixtures|content)"/);
        }
      }),
      settings,
    );
  });

  it('what loads is no bigger than its text says (YAML aliases cannot blow it up)', () => {
    fc.assert(
      fc.property(text(fixturesData, NESTS.fixtures), (content) => {
        const file = write('yaml', content);
        const error = outcome(() => loadFixtures(file), FixtureFileError);
        if (!error)
          expect(JSON.stringify(loadFixtures(file)).length).toBeLessThan(1_000 * content.length + 10_000);
      }),
      settings,
    );
  });

  it('what loads is usable: model.use accepts every fixture a file gave', () => {
    fc.assert(
      fc.property(fixturesData, (data) => {
        const file = write('json', JSON.stringify(data) ?? 'null');
        const error = outcome(() => loadFixtures(file), FixtureFileError);
        if (!error) {
          understudy.model.reset();
          expect(() => understudy.model.use(loadFixtures(file))).not.toThrow();
        }
      }),
      settings,
    );
  });

  it('understudy validate gives every file a verdict (a cassette, a fixture file), never throws', () => {
    fc.assert(
      fc.property(
        text(fixturesData, NESTS.fixtures),
        fc.constantFrom('cassette', 'fixtures' as const),
        (content, kind) => {
          const file = write('json', content);
          const verdict = validateFile(file, kind);
          if ('ok' in verdict && !verdict.ok)
            for (const issue of verdict.issues) expect(issue.path).toMatch(/^\$/);
        },
      ),
      settings,
    );
  });
});

describe('understudy.model.use()', () => {
  const hostile = fc.constantFrom(
    () => {
      const cycle: Record<string, unknown> = { match: {}, response: { content: 'x' } };
      cycle.self = cycle;
      return [cycle];
    },
    () => [{ match: {}, response: { content: 'x', toolCalls: [{ name: 'f', arguments: { f: () => 1 } }] } }],
    () => [
      Object.defineProperty({ match: {} }, 'response', {
        enumerable: true,
        get() {
          throw new Error('getter');
        },
      }),
    ],
    () => {
      let nested: unknown = {};
      for (let i = 0; i < 5000; i++) nested = { a: nested };
      return [{ match: {}, response: { toolCalls: [{ name: 'f', arguments: nested }] } }];
    },
    () => ({ build: () => 'not fixtures' }),
    () => [{ match: { userMessage: /ok/i }, response: { content: 'fine', chunkSize: 1 } }],
    () => script().user('a').fails({ status: 99, message: 'x' }),
  );

  it('registers every fixture, or throws FixtureFileError with paths from use() and registers nothing', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fixturesData,
          fc.anything(),
          hostile.map((make) => make()),
        ),
        (input) => {
          understudy.model.reset();
          understudy.model.use([{ match: { userMessage: 'keep' }, response: { content: 'kept' } }]);
          const before = understudy.model.fixtures;
          const error = outcome(() => understudy.model.use(input as never), FixtureFileError);
          if (error) {
            expectIssues(error.issues, 'understudy.model.use()', 'use()');
            expect(understudy.model.fixtures).toEqual(before);
          } else expect(understudy.model.fixtures.length).toBeGreaterThanOrEqual(before.length);
        },
      ),
      settings,
    );
  });
});

describe('world files', () => {
  const GOOD = `packages:
  - id: store
    kind: external
    bindings: [direct]
    state: { items: { a: { id: a } } }
    operations:
      - id: items.get
        errors: [{ code: NOT_FOUND, status: 404 }]
        behavior: { builtin: get, collection: items }
`;
  const world = fc.oneof(
    fc.record(
      {
        packages: fc.oneof(
          fc.array(
            fc.record(
              {
                id: fc.oneof(fc.constant('store'), value),
                kind: fc.oneof(fc.constant('external'), value),
                bindings: fc.oneof(fc.constant(['direct']), fc.constant(['http']), value),
                http: fc.oneof(fc.constant({ baseURL: 'https://api.openai.com/v1' }), value),
                state: value,
                operations: fc.oneof(
                  fc.array(
                    fc.record(
                      {
                        id: fc.oneof(fc.string(), value),
                        http: fc.record({ method: fc.constant('GET'), path: fc.string() }),
                        behavior: fc.oneof(
                          fc.record({ builtin: fc.constant('get'), collection: fc.string() }),
                          value,
                        ),
                      },
                      { requiredKeys: [] },
                    ),
                    { maxLength: 2 },
                  ),
                  value,
                ),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 2 },
          ),
          value,
        ),
        actors: fc.oneof(fc.array(fc.record({ id: fc.string(), allow: fc.array(fc.string()) })), value),
        drills: value,
      },
      { requiredKeys: [] },
    ),
    value,
  );

  it('load, or throw WorldFileError naming the file and a path, and a failed load keeps the previous world', () => {
    understudy.world.load(folder.write('good.world.yaml', GOOD));
    const state = understudy.world.state;
    fc.assert(
      fc.property(text(world, NESTS.world), fc.constantFrom('json', 'yaml'), (content, ext) => {
        const file = write(`world.${ext}`, content);
        const error = outcome(() => understudy.world.load(file), WorldFileError);
        if (error) {
          expectIssues(error.issues, file, '$');
          expect(understudy.world.state).toEqual(state);
        } else understudy.world.load(folder.path('good.world.yaml'));
      }),
      settings,
    );
  });

  it('understudy validate checks them without throwing', () => {
    fc.assert(
      fc.property(text(world, NESTS.world), (content) => {
        const file = write('world.yaml', content);
        const verdict = validateFile(file, 'world');
        if ('ok' in verdict && !verdict.ok)
          for (const issue of verdict.issues) expect(issue.path).toMatch(/^\$/);
      }),
      settings,
    );
  });
});

describe('golden task files', () => {
  const golden = fc.oneof(
    fc.record(
      {
        tasks: fc.oneof(
          fc.array(
            fc.record(
              {
                id: fc.oneof(fc.string(), value),
                input: value,
                fixtures: fc.oneof(
                  fc.constant('missing.fixture.json'),
                  fc.constant('bad.fixture.json'),
                  value,
                ),
                expect: value,
              },
              { requiredKeys: [] },
            ),
            { maxLength: 2 },
          ),
          value,
        ),
      },
      { requiredKeys: [] },
    ),
    value,
  );

  it('load, or throw GoldenFileError naming the file (or a fixture file it names) and a path', () => {
    folder.write('bad.fixture.json', '[{"match": {}, "response": {"chunkSize": 0}}]');
    fc.assert(
      fc.property(text(golden, NESTS.golden), (content) => {
        const file = write('golden.yaml', content);
        const error = outcome(() => loadGoldenFile(file), GoldenFileError);
        if (error) {
          expect(error.issues.length).toBeGreaterThan(0);
          for (const issue of error.issues) {
            expect([file, folder.path('bad.fixture.json')]).toContain(issue.file);
            expect(issue.path).toMatch(/^\$/);
          }
        }
      }),
      settings,
    );
  });
});

describe('testEnvironmentOptions.understudy', () => {
  const options = fc.oneof(
    fc.record(
      {
        world: value,
        fixtures: value,
        providers: fc.oneof(
          fc.record(
            { openai: fc.oneof(value, fc.record({ baseURL: fc.oneof(fc.webUrl(), value) })) },
            {
              requiredKeys: [],
            },
          ),
          value,
        ),
        timeScale: fc.oneof(fc.double(), value),
        traces: value,
        traceDir: fc.constant('.understudy/traces'),
        strictTurnIndex: value,
      },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );

  it('resolve, or throw OptionsError whose issues name an option path', () => {
    const root = folder.path('');
    fc.assert(
      fc.property(options, (raw) => {
        const error = outcome(
          () => resolveOptions(raw, {}, root, folder.path('a.test.js'), {}),
          OptionsError,
        );
        if (error) {
          expect(error.issues.length).toBeGreaterThan(0);
          for (const issue of error.issues) expect(issue.path).toMatch(/^testEnvironmentOptions\.understudy/);
        }
      }),
      settings,
    );
  });
});
