/**
 * What `npm publish` would ship: the tarball's file list (`npm pack --dry-run --json`) holds
 * every entry point package.json names with its types, the preset, the schemas and what the
 * compiled code loads, and nothing else; a fresh clone builds dist/ before it packs (`prepack`);
 * and the published .d.ts (with `@internal` members stripped) type-check the examples.
 * dist/ is the one the Jest globalSetup built (__tests__/support/pack.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

const root = join(__dirname, '..', '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { ASSETS } = require('../../../scripts/copy-assets.cjs') as { ASSETS: string[] };
const SCHEMAS = ['fixtures', 'golden', 'world', 'options'];

function packedFiles(cwd: string, options: { scripts: boolean }): string[] {
  const out = execFileSync(
    npm,
    ['pack', '--dry-run', '--json', ...(options.scripts ? [] : ['--ignore-scripts'])],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
  );
  return (JSON.parse(out)[0].files as Array<{ path: string }>).map((f) => f.path).sort();
}

/** Every file package.json points at: main, types, bin and each export (types and code). */
function entryPoints(): string[] {
  const targets: string[] = [pkg.main, pkg.types, ...Object.values<string>(pkg.bin)];
  for (const [key, value] of Object.entries<string | Record<string, string>>(pkg.exports)) {
    if (key.includes('*')) continue; // ./schemas/*: checked per schema
    targets.push(...(typeof value === 'string' ? [value] : Object.values(value)));
  }
  return [...new Set(targets.map((t) => normalize(t)))];
}

let files: string[];

beforeAll(() => {
  files = packedFiles(root, { scripts: false });
}, 60_000);

describe('the packed tarball', () => {
  it('ships every entry point of package.json, the .d.ts of each export, the preset, the schemas, the README and the bin', () => {
    const missing = entryPoints().filter((target) => !files.includes(target));
    expect(missing).toEqual([]);
    for (const value of Object.values<string | Record<string, string>>(pkg.exports)) {
      const code = typeof value === 'string' ? value : value.default;
      if (code.endsWith('.js') && code.startsWith('./dist/'))
        expect(files).toContain(normalize(code.replace(/\.js$/, '.d.ts')));
    }
    for (const name of SCHEMAS)
      expect(files).toEqual(
        expect.arrayContaining([`schemas/${name}.schema.json`, `schemas/${name}.validate.cjs`]),
      );
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'jest-preset.js',
        'environment/jest/jest-preset.js',
        'dist/environment/jest/setup.js',
        'dist/environment/jest/test-runner.js',
        'dist/src/reporter/index.js',
        // Run by path (src/ajv.ts), so no require names it.
        'dist/ajv.cjs',
      ]),
    );
  });

  it('ships every file the shipped code requires, and the files it reads (the timeline CSS and script)', () => {
    const shipped = new Set(files);
    const unresolved: string[] = [];
    for (const file of files.filter((f) => f.endsWith('.js') || f.endsWith('.cjs'))) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const [, specifier] of text.matchAll(/require\(["'](\.{1,2}\/[^"']+)["']\)/g)) {
        const base = normalize(join(dirname(file), specifier));
        if (![base, `${base}.js`, `${base}/index.js`].some((c) => shipped.has(c)))
          unresolved.push(`${file} requires ${specifier}`);
      }
    }
    expect(unresolved).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(ASSETS.map((asset) => `dist/${asset}`)));
  });

  it('ships nothing else: no tests, examples, benchmarks, CI, scripts, TypeScript sources or source maps', () => {
    const allowed = [
      /^dist\/.+\.(js|mjs|d\.ts|d\.mts)$/,
      // The sandbox side, the host side and ajv, one file each (scripts/bundle-sandbox.cjs, bundle-host.cjs, bundle-ajv.cjs).
      /^dist\/(sandbox|host|ajv)\.cjs$/,
      ...ASSETS.map((asset) => new RegExp(`^dist/${asset.replace(/\./g, '\\.')}$`)),
      /^schemas\/[a-z-]+\.(schema\.json|validate\.cjs)$/,
      /^(package\.json|README\.md|jest-preset\.js|environment\/jest\/jest-preset\.js)$/,
    ];
    expect(files.filter((f) => !allowed.some((pattern) => pattern.test(f)))).toEqual([]);
    expect(files.filter((f) => /^(__tests__|examples|bench|\.ci|scripts|docs|src)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  });
});

describe('packing a fresh clone', () => {
  let clone: string;

  beforeAll(() => {
    clone = mkdtempSync(join(tmpdir(), 'understudy-clone-'));
    const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((f) => f !== '' && existsSync(join(root, f)));
    for (const file of tracked) cpSync(join(root, file), join(clone, file), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
  }, 60_000);

  afterAll(() => rmSync(clone, { recursive: true, force: true }));

  it('builds dist/ first (prepack), so the tarball holds the environment, the matchers and their types', () => {
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const packed = packedFiles(clone, { scripts: true });
    expect(packed).toEqual(
      expect.arrayContaining([
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/environment/jest/index.js',
        'dist/environment/jest/index.d.ts',
        'dist/matchers/index.js',
        'dist/environment/jest/setup.js',
        ...ASSETS.map((asset) => `dist/${asset}`),
      ]),
    );
  }, 120_000);
});

describe('the published types', () => {
  it('leave out @internal members', () => {
    const model = readFileSync(join(root, 'dist/src/model/mock-model.d.ts'), 'utf8');
    expect(model).toContain('acceptUnmatched(');
    for (const internal of ['beginTest(', 'restartSequences(', 'contractSettings(', 'normalizeText('])
      expect(model).not.toContain(internal);
    expect(readFileSync(join(root, 'dist/src/run/run.d.ts'), 'utf8')).not.toMatch(/\bkind\?:/);
  });

  it('type-check the examples and the matcher typings (jest-understudy mapped to dist/*.d.ts)', () => {
    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    const result = spawnSync(
      tsc,
      ['-p', '__tests__/support/tsconfig.published.json', '--noEmit', '--listFiles'],
      { cwd: root, encoding: 'utf8', timeout: 120_000 },
    );
    // Nothing but the files it read: any line that is not one (a diagnostic) is an error.
    const listed = result.stdout;
    expect(listed.split('\n').filter((line) => line !== '' && !existsSync(line))).toEqual([]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    // The check reads the published declarations, not the sources.
    expect(listed).toContain(join(root, 'dist/src/index.d.ts'));
    expect(listed).toContain(join(root, 'dist/matchers/index.d.ts'));
    expect(listed).not.toContain(join(root, 'src/index.ts'));
  });
});
