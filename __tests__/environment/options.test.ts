import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { resolveOptions } from '../../environment/options';

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
      cassette: join(root, 'tests', '__cassettes__', 'agent.test.ts.cassette.json'),
    });
  });

  it('takes contracts as a boolean or rule names to booleans, and names what is wrong', () => {
    expect(resolve({ contracts: false }).contracts).toBe(false);
    expect(resolve({ contracts: { 'tool-results': false } }).contracts).toEqual({ 'tool-results': false });
    expect(() => resolve({ contracts: 'off' })).toThrow(
      'jest-understudy: testEnvironmentOptions.understudy.contracts: expected true, false or an object of rule names to booleans, received "off"',
    );
    expect(() => resolve({ contracts: { pairing: false } })).toThrow(
      'testEnvironmentOptions.understudy.contracts: unknown rule "pairing"; the rules are tool-results, reasoning',
    );
    expect(() => resolve({ contracts: { reasoning: 'no' } })).toThrow(
      'testEnvironmentOptions.understudy.contracts: rule "reasoning" must be true or false, received "no"',
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
      [{ fixture: [] }, 'testEnvironmentOptions.understudy.fixture must be one of the known options'],
      [
        { strictTurnIndex: 'yes' },
        'testEnvironmentOptions.understudy.strictTurnIndex must be a boolean, received "yes"',
      ],
      [
        { fixtures: 3 },
        'testEnvironmentOptions.understudy.fixtures must be a string or an array of strings, received 3',
      ],
      [
        { providers: { mistral: {} } },
        'testEnvironmentOptions.understudy.providers.mistral must be one of openai, anthropic, gemini',
      ],
      [
        { providers: { openai: { baseURL: 'proxy.test' } } },
        'providers.openai.baseURL must be absolute URLs, received "proxy.test"',
      ],
      [
        { fixtures: ['missing.json'] },
        'names "missing.json", but ' + join(root, 'missing.json') + ' does not exist',
      ],
      [{ fixtures: ['nothing/*.json'] }, 'pattern "nothing/*.json" matches no file'],
      ['fixtures.json', 'testEnvironmentOptions.understudy must be an object'],
      [{ timeScale: -1 }, 'testEnvironmentOptions.understudy.timeScale must be a number ≥ 0, received -1'],
    ])('%j', (raw, message) => {
      expect(() => resolve(raw)).toThrow(message);
    });
  });
});
