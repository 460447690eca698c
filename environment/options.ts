import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { type FileIssue, FileIssuesError } from '../src/file-format/issue';
import { findingsFromAjv, type IssueWording, toIssues } from '../src/file-format/issues';
import { formatPath, type PathSegment, reroot } from '../src/file-format/json-path';
import type { ProviderOptionName, ResolvedOptions, TraceMode, UnderstudyOptions } from '../src/options';
import { LOCAL_DEFAULTS } from '../src/providers/preset-providers';
import { parseAge } from '../src/record/age';
import { isMode, MODES } from '../src/record/mode';
import { cassettePathOf } from '../src/record/paths';
import { piiKinds } from '../src/record/pii';
import { schemaValidator } from '../src/validators';
import { parseAllowPattern } from './network/allow';
import { optionsSchema } from './options.schema';

const TRACE_MODES: readonly TraceMode[] = ['on-failure', 'always', 'off'];
const WHERE = 'testEnvironmentOptions.understudy';

/** Bad options or environment variables: every problem, each named by its option path. */
export class OptionsError extends FileIssuesError<'OPTIONS_INVALID', string> {
  override readonly name = 'OptionsError';
  /** `message` replaces the list of issues as the text (one problem outside the options object). */
  constructor(issues: readonly FileIssue[], message?: string) {
    super(issues, {
      subject: `jest-understudy: invalid ${WHERE}`,
      code: 'OPTIONS_INVALID',
      ...(message !== undefined && { message }),
    });
  }
}

/** One problem of an option, pragma or environment variable `at`, as an issue and a sentence. */
function problem(at: string, message: string): OptionsError {
  return new OptionsError(
    [{ code: 'OPTIONS_INVALID', file: at, path: at, message }],
    `jest-understudy: ${at} ${message}`,
  );
}

function fail(path: string, expected: string, got: unknown): never {
  throw problem(path, `must be ${expected}, received ${JSON.stringify(got)}`);
}

const optionsWording: IssueWording = {
  definitions: {},
  rootType: (got) => `${WHERE} must be an object of options (got ${got})`,
  missingHints: {},
  noneOf: (names) => ({ message: `needs one of ${names.join(', ')}` }),
  valueHint: (value, schema) => {
    if (value === null && (schema.type === 'number' || schema.type === 'integer'))
      return "NaN and Infinity turn into null on their way to Jest's workers: give a finite number";
    if (typeof schema.pattern === 'string' && schema.pattern.includes('(ms|s|m|h|d|w|y)'))
      return 'an age is a number and a unit (ms, s, m, h, d, w, y), e.g. "90d"';
    return undefined;
  },
};

/** The options against THE options schema (environment/options.schema.ts), every problem at once. */
function validateOptions(raw: unknown): UnderstudyOptions {
  const validate = schemaValidator('options', optionsSchema, 'validateOptions');
  const issues: FileIssue[] = [];
  if (!validate(raw)) {
    const findings = findingsFromAjv(validate.errors ?? [], raw, optionsWording);
    issues.push(...toIssues(findings, WHERE, undefined, 'OPTIONS_INVALID'));
  } else {
    const providers = (raw as UnderstudyOptions).providers ?? {};
    for (const [id, given] of Object.entries(providers)) {
      const provider = typeof given === 'object' ? given : undefined;
      const urls = provider?.baseURL === undefined ? [] : [provider.baseURL].flat();
      urls.forEach((url, i) => {
        if (URL.canParse(url)) return;
        const at: PathSegment[] = [
          'providers',
          id,
          'baseURL',
          ...(Array.isArray(provider?.baseURL) ? [i] : []),
        ];
        issues.push({
          code: 'OPTIONS_INVALID',
          file: WHERE,
          path: formatPath(at),
          message: `not an absolute URL: ${JSON.stringify(url)}`,
          suggestion: 'e.g. "https://my-proxy.test/v1"',
        });
      });
    }
    ((raw as UnderstudyOptions).network?.allow ?? []).forEach((entry, i) => {
      const pattern = parseAllowPattern(entry);
      if (typeof pattern === 'string')
        issues.push({
          code: 'OPTIONS_INVALID',
          file: WHERE,
          path: formatPath(['network', 'allow', i]),
          message: `${JSON.stringify(entry)} ${pattern}`,
        });
    });
  }
  if (issues.length > 0)
    throw new OptionsError(issues.map((issue) => ({ ...issue, path: reroot(issue.path, WHERE) })));
  return raw as UnderstudyOptions;
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
      // tinyglobby is loaded for a pattern only: every test file resolves its options, few name globs.
      const found = (require('tinyglobby') as typeof import('tinyglobby'))
        .globSync(abs, { absolute: true })
        .sort();
      if (found.length === 0)
        throw problem(origin, `pattern ${JSON.stringify(p)} matches no file (looked in ${base})`);
      out.push(...found);
    } else {
      if (!existsSync(abs)) throw problem(origin, `names ${JSON.stringify(p)}, but ${abs} does not exist`);
      out.push(abs);
    }
  }
  return out;
}

const MODULE_EXTENSIONS = ['.js', '.cjs', '.mjs', '.ts', '.cts', '.mts'];

/** The file a module path names, as `require` would find it (with or without its extension). */
function moduleFile(path: string): string | undefined {
  for (const candidate of [path, ...MODULE_EXTENSIONS.map((ext) => path + ext)])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
}

export function resolveOptions(
  raw: unknown,
  pragmas: Record<string, string | string[]>,
  rootDir: string,
  testPath: string,
  env: NodeJS.ProcessEnv,
  { validated = false }: { validated?: boolean } = {},
): ResolvedOptions {
  // Options a runner's main process validated already (Vitest's plugin, at start-up) are not
  // validated again in each test file's worker, which would load the validator for every file.
  const o = validated ? ((raw ?? {}) as UnderstudyOptions) : validateOptions(raw ?? {});
  const envMode = env.UNDERSTUDY_MODE;
  if (envMode !== undefined && envMode !== '' && !isMode(envMode))
    fail('UNDERSTUDY_MODE', `one of ${MODES.join(', ')}`, envMode);

  const providers: ResolvedOptions['providers'] = {};
  for (const [id, p] of Object.entries(o.providers ?? {}) as Array<[ProviderOptionName, unknown]>) {
    if (p === false) continue;
    const given =
      typeof p === 'object' && p !== null ? (p as { baseURL?: string | string[] }).baseURL : undefined;
    // A local gateway turned on without an address is served at its usual one.
    providers[id] = given === undefined ? (LOCAL_DEFAULTS[id] ?? []) : [given].flat();
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
  const handlers = o.handlers === undefined ? undefined : moduleFile(resolve(rootDir, o.handlers));
  if (o.handlers !== undefined && handlers === undefined)
    throw problem(
      `${WHERE}.handlers`,
      `names ${JSON.stringify(o.handlers)}, but no module is there (looked for ${resolve(rootDir, o.handlers)}, also with ${MODULE_EXTENSIONS.join(', ')})`,
    );

  const envStrict = env.UNDERSTUDY_STRICT_TURN_INDEX;
  const envScale = env.UNDERSTUDY_TIME_SCALE;
  const envTraces = env.UNDERSTUDY_TRACES;
  if (envTraces !== undefined && envTraces !== '' && !TRACE_MODES.includes(envTraces as TraceMode)) {
    fail('UNDERSTUDY_TRACES', `one of ${TRACE_MODES.join(', ')}`, envTraces);
  }
  if (envScale !== undefined && !(envScale.trim() !== '' && Number(envScale) >= 0)) {
    fail('UNDERSTUDY_TIME_SCALE', 'a number ≥ 0', envScale);
  }
  const history = o.history === false ? undefined : o.history === true ? {} : (o.history ?? {});
  if ((history?.readyAfter ?? 10) > (history?.keep ?? 20))
    throw problem(
      `${WHERE}.history.readyAfter`,
      `must be at most history.keep (${history?.keep ?? 20}, the records kept per test file), received ${history?.readyAfter ?? 10}`,
    );
  const tagList = (text: string) => text.split(/[\s,]+/).filter(Boolean);
  return {
    rootDir,
    testPath,
    quarantine: o.quarantine ?? [],
    ...(history && {
      history: {
        path: resolve(rootDir, history.path ?? '.understudy/history.jsonl'),
        keep: history.keep ?? 20,
        readyAfter: history.readyAfter ?? 10,
      },
    }),
    tags: stringList(pragmas['understudy-tags'], '@understudy-tags').flatMap(tagList),
    selectTags: tagList(env.UNDERSTUDY_TAGS ?? ''),
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
    network: { allow: [...(o.network?.allow ?? [])] },
    ...(handlers ? { handlers } : {}),
    ...(o.cassetteMaxAge !== undefined && { cassetteMaxAge: parseAge(o.cassetteMaxAge) }),
    pii: piiKinds(o.redact?.pii),
    startedAt: Date.now(),
    ...(o.dialect !== undefined ? { dialect: o.dialect } : {}),
    ...(o.prices !== undefined && { prices: o.prices }),
    cassette: cassettePathOf({
      rootDir,
      testPath,
      ...(o.cassetteDir ? { cassetteDir: o.cassetteDir } : {}),
      ...(o.cassetteFormat ? { format: o.cassetteFormat } : {}),
      ...(pragmaCassette ? { pragmaCassette: pragmaCassette.trim() } : {}),
      pragmaFixtures: pragmaFixtures.flatMap((p) => p.split(/\s+/)).filter(Boolean),
    }),
  };
}
