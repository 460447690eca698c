/**
 * Reads the imports of the package's sources and checks them against the layers written down
 * in docs/architecture.md. Every way a file can name another counts: `import`, `import type`,
 * `export … from`, `require()`, `import()` and `typeof import()` types, so the picture the
 * layers draw is the one the code has (a type-only import still couples the two folders).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { parseSync } from '@swc/core';

/** One file naming another file of the repository. */
export interface ImportEdge {
  /** Repository-relative paths, `/`-separated. */
  from: string;
  to: string;
  /** As written in the source. */
  specifier: string;
  /** `import type`, `export type … from` or a `typeof import()` type. */
  typeOnly: boolean;
}

const SOURCE = /\.(?:ts|js|cjs|mjs)$/;

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listFiles(path, out);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

interface Found {
  specifier: string;
  typeOnly: boolean;
}

type Node = Record<string, unknown> & { type?: string };

/** The module specifiers a source text names, with whether each is for types only. */
export function specifiersOf(source: string): Found[] {
  const found: Found[] = [];
  const literal = (node: unknown) =>
    (node as Node | undefined)?.type === 'StringLiteral' ? ((node as Node).value as string) : undefined;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as Node;
    switch (n.type) {
      case 'ImportDeclaration': {
        const specifiers = n.specifiers as Array<{ isTypeOnly?: boolean }>;
        const typeOnly =
          n.typeOnly === true || (specifiers.length > 0 && specifiers.every((s) => s.isTypeOnly === true));
        found.push({ specifier: literal(n.source)!, typeOnly });
        break;
      }
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration': {
        const specifier = literal(n.source);
        if (specifier !== undefined) found.push({ specifier, typeOnly: n.typeOnly === true });
        break;
      }
      case 'CallExpression': {
        const callee = n.callee as Node;
        const isLoad =
          callee.type === 'Import' || (callee.type === 'Identifier' && callee.value === 'require');
        const first = (n.arguments as Array<{ expression: unknown }>)[0];
        const specifier = isLoad ? literal(first?.expression) : undefined;
        if (specifier !== undefined) found.push({ specifier, typeOnly: false });
        break;
      }
      case 'TsImportType': {
        const specifier = literal(n.argument);
        if (specifier !== undefined) found.push({ specifier, typeOnly: true });
        break;
      }
    }
    for (const key of Object.keys(n)) if (key !== 'span') visit(n[key]);
  };
  visit(parseSync(source, { syntax: 'typescript', comments: false }));
  return found;
}

function resolveFile(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, join(base, 'index.ts'), `${base}.js`, join(base, 'index.js')];
  if (extname(base) === '.js') candidates.push(base.replace(/\.js$/, '.ts'));
  return candidates.find((c) => statSync(c, { throwIfNoEntry: false })?.isFile());
}

/** Every relative import between the files under `dirs` (repository-relative folders). */
export function scanImports(root: string, dirs: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const rel = (path: string) => relative(root, path).split('\\').join('/');
  for (const file of dirs.flatMap((dir) => listFiles(join(root, dir)))) {
    for (const { specifier, typeOnly } of specifiersOf(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveFile(file, specifier);
      if (!target) throw new Error(`${rel(file)}: cannot resolve the import ${JSON.stringify(specifier)}`);
      edges.push({ from: rel(file), to: rel(target), specifier, typeOnly });
    }
  }
  return edges;
}

/** A package a file imports by name (not a path), as written. */
export interface PackageImport {
  /** Repository-relative path, `/`-separated. */
  file: string;
  specifier: string;
}

const ANY_SOURCE = /\.(?:ts|mts|cts|js|cjs|mjs)$/;

/** Every package the files under `dirs` name, ES modules (.mts, .mjs) included. */
export function scanPackageImports(root: string, dirs: readonly string[]): PackageImport[] {
  const found: PackageImport[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (ANY_SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts'))
        for (const { specifier } of specifiersOf(readFileSync(join(root, path), 'utf8')))
          if (!specifier.startsWith('.') && !specifier.startsWith('node:'))
            found.push({ file: path, specifier });
    }
  };
  for (const dir of dirs) walk(dir);
  return found;
}

/** A test runner's own packages, and the one folder (its adapter) whose files may import them. */
export interface RunnerRule {
  runner: string;
  packages: RegExp;
  adapter: string;
}

/** Each import of a runner's package from outside its adapter, as a sentence naming the file and the rule. */
export function runnerViolations(imports: readonly PackageImport[], rules: readonly RunnerRule[]): string[] {
  const found: string[] = [];
  for (const { file, specifier } of imports)
    for (const { runner, packages, adapter } of rules)
      if (packages.test(specifier) && !file.startsWith(adapter))
        found.push(
          `${file} imports "${specifier}": only ${adapter} (the ${runner} adapter) may import ${runner}`,
        );
  return found;
}

export interface LayerRules {
  /**
   * Bottom first. A unit may import units of lower layers only: not its peers, not above.
   * A unit is a folder (`src/world`) or a single file's name without extension (`src/clock`).
   */
  layers: ReadonlyArray<readonly string[]>;
  /** Imports that break the layering on purpose, each with the reason (kept short and few). */
  exceptions?: ReadonlyArray<{ from: string; to: string; reason: string }>;
  /** Files that must not import some files, whatever their layers (a realm boundary). */
  forbidden?: ReadonlyArray<{ from: RegExp; to: RegExp; unless?: RegExp; reason: string }>;
}

/** The unit a file belongs to: `src/<folder>`, `src/<file>` for a file directly in src/, else the top folder. */
export function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'src' && parts.length > 2) return `src/${parts[1]}`;
  if (parts[0] === 'src') return `src/${parts[1].replace(/\.[^.]+$/, '')}`;
  return parts[0];
}

/** Each import that breaks the rules, as a sentence naming the file, the import and the rule. */
export function layerViolations(edges: readonly ImportEdge[], rules: LayerRules): string[] {
  const layerOf = new Map<string, number>();
  rules.layers.forEach((units, i) => {
    for (const unit of units) {
      if (layerOf.has(unit)) throw new Error(`${unit} is listed in two layers`);
      layerOf.set(unit, i);
    }
  });
  const problems: string[] = [];
  const describe = (e: ImportEdge) =>
    `${e.from} imports ${JSON.stringify(e.specifier)}${e.typeOnly ? ' (types)' : ''}`;
  for (const edge of edges) {
    for (const rule of rules.forbidden ?? [])
      if (rule.from.test(edge.from) && rule.to.test(edge.to) && !rule.unless?.test(edge.to))
        problems.push(`${describe(edge)}: ${rule.reason}`);
    const from = unitOf(edge.from);
    const to = unitOf(edge.to);
    if (from === to) continue;
    if (rules.exceptions?.some((x) => x.from === edge.from && x.to === edge.to)) continue;
    const a = layerOf.get(from);
    const b = layerOf.get(to);
    if (a === undefined) problems.push(`${describe(edge)}: ${from} is in no layer (add it to the layers)`);
    else if (b === undefined) problems.push(`${describe(edge)}: ${to} is in no layer (add it to the layers)`);
    else if (a === b) problems.push(`${describe(edge)}: ${from} and ${to} are peers in one layer`);
    else if (a < b) problems.push(`${describe(edge)}: ${from} is below ${to}, so it must not import it`);
  }
  return problems;
}

/** The import cycles among files (strongly connected components of more than one file, or a file importing itself). */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, []);
    next.get(e.from)!.push(e.to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Tarjan's algorithm; the source tree is small enough for recursion.
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) connect(v);
  return found;
}

/** The folder-level graph, `a -> b, c` per unit, for the docs and for failure messages. */
export function unitGraph(edges: readonly ImportEdge[]): string[] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    const from = unitOf(e.from);
    const to = unitOf(e.to);
    if (from === to) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  return [...graph.keys()].sort().map((unit) => `${unit} -> ${[...graph.get(unit)!].sort().join(' ')}`);
}
