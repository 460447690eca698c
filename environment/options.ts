import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { globSync } from 'tinyglobby';
import { settingProblem } from '../src/contracts/rules';
import { isMode, MODES } from '../src/record/mode';
import { cassettePathOf } from '../src/record/paths';
import type { ResolvedOptions, TraceMode, UnderstudyOptions } from '../src/runtime/bridge';

const KNOWN = new Set([
  'world',
  'fixtures',
  'strictTurnIndex',
  'providers',
  'traceDir',
  'traces',
  'timeScale',
  'strictCassettes',
  'cassetteDir',
  'contracts',
]);
const TRACE_MODES: readonly TraceMode[] = ['on-failure', 'always', 'off'];
const PROVIDERS = new Set(['openai', 'anthropic', 'gemini']);
const WHERE = 'testEnvironmentOptions.understudy';

export class OptionsError extends Error {
  readonly code = 'OPTIONS_INVALID';
}

function fail(path: string, expected: string, got: unknown): never {
  throw new OptionsError(`jest-understudy: ${path} must be ${expected}, received ${JSON.stringify(got)}`);
}

function stringList(value: unknown, path: string): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  return fail(path, 'a string or an array of strings', value);
}

/** Expands globs and checks every named file exists, so a typo fails at start-up, naming its origin. */
function fixturePaths(patterns: string[], base: string, origin: string): string[] {
  const out: string[] = [];
  for (const p of patterns) {
    const abs = isAbsolute(p) ? p : resolve(base, p);
    if (/[*?[{]/.test(p)) {
      const found = globSync(abs, { absolute: true }).sort();
      if (found.length === 0)
        throw new OptionsError(
          `jest-understudy: ${origin} pattern ${JSON.stringify(p)} matches no file (looked in ${base})`,
        );
      out.push(...found);
    } else {
      if (!existsSync(abs))
        throw new OptionsError(
          `jest-understudy: ${origin} names ${JSON.stringify(p)}, but ${abs} does not exist`,
        );
      out.push(abs);
    }
  }
  return out;
}

export function resolveOptions(
  raw: unknown,
  pragmas: Record<string, string | string[]>,
  rootDir: string,
  testPath: string,
  env: NodeJS.ProcessEnv,
): ResolvedOptions {
  const o = (raw ?? {}) as UnderstudyOptions;
  if (typeof o !== 'object' || Array.isArray(o)) fail(WHERE, 'an object', raw);
  for (const key of Object.keys(o)) {
    if (!KNOWN.has(key)) fail(`${WHERE}.${key}`, `one of the known options (${[...KNOWN].join(', ')})`, key);
  }
  if (o.strictTurnIndex !== undefined && typeof o.strictTurnIndex !== 'boolean')
    fail(`${WHERE}.strictTurnIndex`, 'a boolean', o.strictTurnIndex);
  if (o.world !== undefined && typeof o.world !== 'string') fail(`${WHERE}.world`, 'a path string', o.world);
  if (o.traceDir !== undefined && typeof o.traceDir !== 'string')
    fail(`${WHERE}.traceDir`, 'a path string', o.traceDir);
  if (o.traces !== undefined && !TRACE_MODES.includes(o.traces))
    fail(`${WHERE}.traces`, `one of ${TRACE_MODES.map((m) => `"${m}"`).join(', ')}`, o.traces);
  if (o.timeScale !== undefined && !(typeof o.timeScale === 'number' && o.timeScale >= 0)) {
    fail(`${WHERE}.timeScale`, 'a number ≥ 0', o.timeScale);
  }
  if (o.strictCassettes !== undefined && typeof o.strictCassettes !== 'boolean')
    fail(`${WHERE}.strictCassettes`, 'a boolean', o.strictCassettes);
  if (o.cassetteDir !== undefined && typeof o.cassetteDir !== 'string')
    fail(`${WHERE}.cassetteDir`, 'a path string', o.cassetteDir);
  const contractsProblem = o.contracts === undefined ? undefined : settingProblem(o.contracts);
  if (contractsProblem) throw new OptionsError(`jest-understudy: ${WHERE}.contracts: ${contractsProblem}`);
  const envMode = env.UNDERSTUDY_MODE;
  if (envMode !== undefined && envMode !== '' && !isMode(envMode))
    fail('UNDERSTUDY_MODE', `one of ${MODES.join(', ')}`, envMode);

  const providers: ResolvedOptions['providers'] = {};
  for (const [id, p] of Object.entries(o.providers ?? {})) {
    if (!PROVIDERS.has(id)) fail(`${WHERE}.providers.${id}`, `one of ${[...PROVIDERS].join(', ')}`, id);
    const urls = stringList(p?.baseURL, `${WHERE}.providers.${id}.baseURL`);
    for (const u of urls) if (!URL.canParse(u)) fail(`${WHERE}.providers.${id}.baseURL`, 'absolute URLs', u);
    providers[id as 'openai'] = urls;
  }

  const testDir = dirname(testPath);
  const pragmaFixtures = stringList(pragmas['understudy-fixtures'], '@understudy-fixtures');
  const fixtures =
    pragmaFixtures.length > 0
      ? fixturePaths(
          pragmaFixtures.flatMap((p) => p.split(/\s+/)).filter(Boolean),
          testDir,
          '@understudy-fixtures',
        )
      : fixturePaths(stringList(o.fixtures, `${WHERE}.fixtures`), rootDir, `${WHERE}.fixtures`);
  const pragmaCassette = stringList(pragmas['understudy-cassette'], '@understudy-cassette')[0];
  const pragmaWorld = stringList(pragmas['understudy-world'], '@understudy-world')[0];
  const world = pragmaWorld ? resolve(testDir, pragmaWorld) : o.world ? resolve(rootDir, o.world) : undefined;

  const envStrict = env.UNDERSTUDY_STRICT_TURN_INDEX;
  const envScale = env.UNDERSTUDY_TIME_SCALE;
  const envTraces = env.UNDERSTUDY_TRACES;
  if (envTraces !== undefined && envTraces !== '' && !TRACE_MODES.includes(envTraces as TraceMode)) {
    fail('UNDERSTUDY_TRACES', `one of ${TRACE_MODES.join(', ')}`, envTraces);
  }
  if (envScale !== undefined && !(envScale.trim() !== '' && Number(envScale) >= 0)) {
    fail('UNDERSTUDY_TIME_SCALE', 'a number ≥ 0', envScale);
  }
  return {
    rootDir,
    testPath,
    ...(world ? { world } : {}),
    fixtures,
    strictTurnIndex: envStrict === '1' || envStrict === 'true' || o.strictTurnIndex === true,
    providers,
    traceDir: resolve(rootDir, o.traceDir ?? '.understudy/traces'),
    traces: envTraces ? (envTraces as TraceMode) : (o.traces ?? 'on-failure'),
    timeScale: envScale !== undefined ? Number(envScale) : (o.timeScale ?? 1),
    mode: isMode(envMode) ? envMode : 'replay',
    strictCassettes:
      env.UNDERSTUDY_STRICT_CASSETTES === '1' ||
      env.UNDERSTUDY_STRICT_CASSETTES === 'true' ||
      o.strictCassettes === true,
    contracts: o.contracts ?? true,
    cassette: cassettePathOf({
      rootDir,
      testPath,
      ...(o.cassetteDir ? { cassetteDir: o.cassetteDir } : {}),
      ...(pragmaCassette ? { pragmaCassette: pragmaCassette.trim() } : {}),
      pragmaFixtures: pragmaFixtures.flatMap((p) => p.split(/\s+/)).filter(Boolean),
    }),
  };
}
