import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { OptionsError, resolveOptions } from '../../../environment/options';
import { thrown } from '../../support/temp';

const root = mkdtempSync(join(tmpdir(), 'understudy-options-'));
writeFileSync(join(root, 'a.fixture.json'), '[]');
writeFileSync(join(root, 'b.fixture.json'), '[]');
const testPath = join(root, 'tests', 'agent.test.ts');

const resolve = (
  raw: unknown,
  pragmas: Record<string, string | string[]> = {},
  env: NodeJS.ProcessEnv = {},
) => resolveOptions(raw, pragmas, root, testPath, env);

describe('testEnvironmentOptions.understudy', () => {
  it('resolves defaults', () => {
    expect(resolve(undefined)).toEqual({
      rootDir: root,
      testPath,
      fixtures: [],
      strictTurnIndex: false,
      providers: {},
      traceDir: join(root, '.understudy/traces'),
      traces: 'on-failure',
      timeScale: 1,
      mode: 'replay',
      strictCassettes: false,
      contracts: true,
      network: { allow: [] },
      pii: [],
      startedAt: expect.any(Number),
      cassette: join(root, 'tests', '__cassettes__', 'agent.test.ts.cassette.json'),
      quarantine: [],
      history: { path: join(root, '.understudy/history.jsonl'), keep: 20, readyAfter: 10 },
      tags: [],
      selectTags: [],
    });
  });

  it('takes the quarantine, the history and tags, and names what is wrong', () => {
    expect(resolve({ quarantine: ['a › b'] }).quarantine).toEqual(['a › b']);
    expect(resolve({ history: false }).history).toBeUndefined();
    expect(resolve({ history: { path: 'h/flakes.jsonl', keep: 5, readyAfter: 5 } }).history).toEqual({
      path: join(root, 'h/flakes.jsonl'),
      keep: 5,
      readyAfter: 5,
    });
    expect(resolve({}, { 'understudy-tags': 'agent cassette-v3' }, { UNDERSTUDY_TAGS: 'a,b' })).toMatchObject(
      {
        tags: ['agent', 'cassette-v3'],
        selectTags: ['a', 'b'],
      },
    );
    expect(() => resolve({ history: { path: 'history.txt' } })).toThrow(
      'testEnvironmentOptions.understudy.history.path',
    );
    expect(() => resolve({ history: { keep: 1 } })).toThrow('testEnvironmentOptions.understudy.history.keep');
    expect(() => resolve({ quarantine: 'a › b' })).toThrow('testEnvironmentOptions.understudy.quarantine');
    expect(() => resolve({ history: { keep: 3 } })).toThrow(
      'testEnvironmentOptions.understudy.history.readyAfter must be at most history.keep (3, the records kept per test file), received 10',
    );
  });

  it('takes network.allow as host:port patterns, naming each bad one with its index and the fix', () => {
    expect(resolve({ network: { allow: ['localhost:5432', '*.internal.test:443'] } }).network).toEqual({
      allow: ['localhost:5432', '*.internal.test:443'],
    });
    const error = thrown(() =>
      resolve({ network: { allow: ['localhost:5432', 'db.internal.test', 'https://cache.test:6380/'] } }),
    );
    expect(error).toBeInstanceOf(OptionsError);
    expect(error.issues.map((issue: { path: string }) => issue.path)).toEqual([
      'testEnvironmentOptions.understudy.network.allow[1]',
      'testEnvironmentOptions.understudy.network.allow[2]',
    ]);
    expect(error.message).toContain(
      'testEnvironmentOptions.understudy.network.allow[1]: "db.internal.test" has no port; give one, or "*" for every port',
    );
    expect(error.message).toContain(
      'testEnvironmentOptions.understudy.network.allow[2]: "https://cache.test:6380/" is a URL; give a host:port pattern instead, here "cache.test:6380"',
    );
    expect(() => resolve({ network: { allow: 'localhost:5432' } })).toThrow(
      'testEnvironmentOptions.understudy.network.allow: must be',
    );
    expect(() => resolve({ network: { allowed: [] } })).toThrow(
      'testEnvironmentOptions.understudy.network.allowed: unknown property "allowed"',
    );
  });

  it('resolves the handlers module against the rootDir, with or without its extension, and names a missing one', () => {
    writeFileSync(join(root, 'handlers.js'), 'module.exports = [];\n');
    expect(resolve({ handlers: 'handlers' }).handlers).toBe(join(root, 'handlers.js'));
    expect(resolve({ handlers: './handlers.js' }).handlers).toBe(join(root, 'handlers.js'));
    expect(() => resolve({ handlers: 'mocks/handlers' })).toThrow(
      `jest-understudy: testEnvironmentOptions.understudy.handlers names "mocks/handlers", but no module is there (looked for ${join(root, 'mocks', 'handlers')}, also with .js, .cjs, .mjs, .ts, .cts, .mts)`,
    );
  });

  it('takes the cassette format, an age limit and personal-data redaction, and names what is wrong', () => {
    expect(resolve({ cassetteFormat: 'yaml' }).cassette).toBe(
      join(root, 'tests', '__cassettes__', 'agent.test.ts.cassette.yaml'),
    );
    expect(resolve({ cassetteMaxAge: '90d' }).cassetteMaxAge).toEqual({ ms: 90 * 86_400_000, text: '90d' });
    expect(resolve({ redact: { pii: true } }).pii).toEqual(['email', 'card', 'iban', 'ssn', 'phone', 'ip']);
    expect(resolve({ redact: { pii: ['phone', 'email'] } }).pii).toEqual(['email', 'phone']);
    expect(() => resolve({ cassetteMaxAge: '3 months' })).toThrow(
      'an age is a number and a unit (ms, s, m, h, d, w, y), e.g. "90d"',
    );
    expect(() => resolve({ redact: { pii: ['names'] } })).toThrow(
      'testEnvironmentOptions.understudy.redact.pii[0]: must be one of "email", "card", "phone", "ssn", "iban", "ip" (got the string "names")',
    );
    expect(() => resolve({ cassetteFormat: 'xml' })).toThrow(
      'testEnvironmentOptions.understudy.cassetteFormat',
    );
  });

  it('takes a dialect setting and names what is wrong', () => {
    expect(resolve({ dialect: 'all' }).dialect).toBe('all');
    expect(resolve({ dialect: ['keep-alive', 'empty-choices'] }).dialect).toEqual([
      'keep-alive',
      'empty-choices',
    ]);
    expect(resolve({ dialect: { dialects: 'all', seed: 4 } }).dialect).toEqual({ dialects: 'all', seed: 4 });
    expect(resolve({}).dialect).toBeUndefined();
    const error = thrown(() => resolve({ dialect: ['keepalive'] }));
    expect(error).toBeInstanceOf(OptionsError);
    expect((error as Error).message).toContain('testEnvironmentOptions.understudy.dialect');
    expect((error as Error).message).toContain('keep-alive');
  });

  it('takes model prices per provider and model, naming the JSON path of what is wrong', () => {
    const prices = { openai: { 'my-ft-model': { input: 1, output: 2, cachedInput: 0.5 } } };
    expect(resolve({ prices }).prices).toEqual(prices);
    expect(resolve({}).prices).toBeUndefined();
    const text = (raw: unknown) => (thrown(() => resolve(raw)) as Error).message;
    expect(text({ prices: { openai: { 'gpt-x': { input: '1', output: 2 } } } })).toContain(
      'testEnvironmentOptions.understudy.prices.openai["gpt-x"].input',
    );
    expect(text({ prices: { openai: { 'gpt-x': { input: 1 } } } })).toMatch(
      /prices\.openai\["gpt-x"\].*output/,
    );
    expect(text({ prices: { openai: { 'gpt-x': { input: -1, output: 2 } } } })).toContain('input');
    expect(text({ prices: { mistral: {} } })).toContain('testEnvironmentOptions.understudy.prices');
    expect(
      text({ prices: { gemini: { g: { input: 1, output: 1, longContext: { input: 2, output: 2 } } } } }),
    ).toContain('above');
  });

  it('turns on a local gateway preset at its usual address with true, or at the address given', () => {
    expect(resolve({ providers: { ollama: true } }).providers).toEqual({
      ollama: ['http://localhost:11434/v1', 'http://127.0.0.1:11434/v1'],
    });
    expect(
      resolve({ providers: { litellm: { baseURL: 'http://proxy.invalid:4000' }, ollama: false } }).providers,
    ).toEqual({
      litellm: ['http://proxy.invalid:4000'],
    });
    expect(
      resolve({ providers: { azure: { baseURL: 'https://llm.corp.invalid/openai' } } }).providers,
    ).toEqual({
      azure: ['https://llm.corp.invalid/openai'],
    });
    expect(() => resolve({ providers: { azure: { baseURL: 'llm.corp' } } })).toThrow(
      'testEnvironmentOptions.understudy.providers.azure.baseURL: not an absolute URL: "llm.corp"',
    );
    expect(() => resolve({ providers: { vllm: true } })).toThrow(
      'testEnvironmentOptions.understudy.providers.vllm: unknown property "vllm"',
    );
  });

  it('takes contracts as a boolean or rule names to booleans, and names what is wrong', () => {
    expect(resolve({ contracts: false }).contracts).toBe(false);
    expect(resolve({ contracts: { 'tool-results': false } }).contracts).toEqual({ 'tool-results': false });
    expect(() => resolve({ contracts: 'off' })).toThrow(
      'testEnvironmentOptions.understudy.contracts: must be true or false or an object (got the string "off")',
    );
    expect(() => resolve({ contracts: { pairing: false } })).toThrow(
      'testEnvironmentOptions.understudy.contracts.pairing: unknown property "pairing" — allowed here: tool-results, reasoning,',
    );
    expect(() => resolve({ contracts: { reasoning: 'no' } })).toThrow(
      'testEnvironmentOptions.understudy.contracts.reasoning: must be true or false (got the string "no")',
    );
  });

  it('expands fixture globs against rootDir in a stable order', () => {
    expect(resolve({ fixtures: ['*.fixture.json'] }).fixtures).toEqual([
      join(root, 'a.fixture.json'),
      join(root, 'b.fixture.json'),
    ]);
  });

  it('docblock pragmas override config and resolve against the test file', () => {
    writeFileSync(join(root, 'pragma.json'), '[]');
    const o = resolve(
      { fixtures: ['a.fixture.json'] },
      { 'understudy-fixtures': '../pragma.json', 'understudy-world': 'w.yaml' },
    );
    expect(o.fixtures).toEqual([join(root, 'pragma.json')]);
    expect(o.world).toBe(join(root, 'tests', 'w.yaml'));
  });

  it('strictTurnIndex comes from the option or UNDERSTUDY_STRICT_TURN_INDEX', () => {
    expect(resolve({ strictTurnIndex: true }).strictTurnIndex).toBe(true);
    expect(resolve({}, {}, { UNDERSTUDY_STRICT_TURN_INDEX: '1' }).strictTurnIndex).toBe(true);
  });

  it('collects extra base URLs per provider', () => {
    expect(resolve({ providers: { openai: { baseURL: 'https://proxy.test/v1' } } }).providers).toEqual({
      openai: ['https://proxy.test/v1'],
    });
  });

  describe('bad input names the option and what was expected', () => {
    it.each([
      [
        { fixture: [] },
        'testEnvironmentOptions.understudy.fixture: unknown property "fixture" — did you mean "fixtures"?',
      ],
      [
        { strictTurnIndex: 'yes' },
        'testEnvironmentOptions.understudy.strictTurnIndex: must be true or false (got the string "yes")',
      ],
      [
        { fixtures: 3 },
        'testEnvironmentOptions.understudy.fixtures: must be a non-empty string or a list of non-empty strings (got 3)',
      ],
      [
        { providers: { mistral: {} } },
        'testEnvironmentOptions.understudy.providers.mistral: unknown property "mistral" — allowed here: openai, anthropic, gemini',
      ],
      [
        { providers: { openai: { baseURL: 'proxy.test' } } },
        'testEnvironmentOptions.understudy.providers.openai.baseURL: not an absolute URL: "proxy.test"',
      ],
      [
        { providers: 5 },
        'testEnvironmentOptions.understudy.providers: must be { openai?, anthropic?, gemini?, bedrock?, azure?, vertex?, openrouter?, ollama?, litellm? } (got 5)',
      ],
      [
        { providers: { openai: 'https://proxy.test/v1' } },
        'testEnvironmentOptions.understudy.providers.openai: must be { baseURL } (got the string "https://proxy.test/v1") — write { "baseURL": "https://proxy.test/v1" }',
      ],
      [
        { providers: { openai: { baseUrl: 'https://proxy.test/v1' } } },
        'testEnvironmentOptions.understudy.providers.openai.baseUrl: unknown property "baseUrl" — did you mean "baseURL"?',
      ],
      [
        { world: '' },
        'testEnvironmentOptions.understudy.world: must be a non-empty string (got the string "")',
      ],
      [
        { timeScale: null },
        "testEnvironmentOptions.understudy.timeScale: must be a number ≥ 0 (got null) — NaN and Infinity turn into null on their way to Jest's workers: give a finite number",
      ],
      [
        { timeScale: Number.NaN },
        'testEnvironmentOptions.understudy.timeScale: must be a number ≥ 0 (got NaN)',
      ],
      [
        { fixtures: ['missing.json'] },
        'names "missing.json", but ' + join(root, 'missing.json') + ' does not exist',
      ],
      [{ fixtures: ['nothing/*.json'] }, 'pattern "nothing/*.json" matches no file'],
      [
        'fixtures.json',
        'testEnvironmentOptions.understudy: testEnvironmentOptions.understudy must be an object of options (got the string "fixtures.json")',
      ],
      [{ timeScale: -1 }, 'testEnvironmentOptions.understudy.timeScale: must be a number ≥ 0 (got -1)'],
    ])('%j', (raw, message) => {
      expect(() => resolve(raw)).toThrow(message);
    });

    it('names every problem at once, each with its option path, as issues', () => {
      const error = thrown(() => resolve({ timeScale: 'fast', traces: 'never', providers: { openai: {} } }));
      expect(error).toBeInstanceOf(OptionsError);
      expect(error.message.split('\n')[0]).toBe(
        'jest-understudy: invalid testEnvironmentOptions.understudy: 2 problems',
      );
      expect(error.issues.map((issue: { path: string }) => issue.path)).toEqual([
        'testEnvironmentOptions.understudy.traces',
        'testEnvironmentOptions.understudy.timeScale',
      ]);
    });

    it('keeps checking the environment variables', () => {
      expect(() => resolve({}, {}, { UNDERSTUDY_TIME_SCALE: 'fast' })).toThrow(
        'jest-understudy: UNDERSTUDY_TIME_SCALE must be a number ≥ 0, received "fast"',
      );
    });
  });
});

describe('options a main process validated already (Vitest workers)', () => {
  it('resolve to what validating them again gives', () => {
    const given = {
      fixtures: ['*.fixture.json'],
      providers: { openai: { baseURL: 'http://localhost:9000/v1' }, ollama: true },
      network: { allow: ['localhost:5432'] },
      traces: 'always',
      contracts: { 'tool-results': false },
    };
    const pragmas = { 'understudy-world': './orders.world.yaml' };
    const { startedAt: _trusted, ...trusted } = resolveOptions(
      given,
      pragmas,
      root,
      testPath,
      {},
      { validated: true },
    );
    const { startedAt: _checked, ...checked } = resolveOptions(given, pragmas, root, testPath, {});
    expect(trusted).toEqual(checked);
  });

  it('still check the pragmas and the environment of the test file', () => {
    expect(() =>
      resolveOptions({}, { 'understudy-fixtures': 'missing.json' }, root, testPath, {}, { validated: true }),
    ).toThrow(/missing\.json/);
    expect(() =>
      resolveOptions({}, {}, root, testPath, { UNDERSTUDY_MODE: 'nope' }, { validated: true }),
    ).toThrow(/UNDERSTUDY_MODE/);
  });
});
