#!/usr/bin/env node
// Writes the generated parts of docs/: docs/errors.md from the error-code table
// (src/errors/codes.ts), the attribute table of docs/traces.md from the trace's attribute table
// (src/trace/attributes.ts), the options table of docs/configuration.md from the options schema
// (schemas/options.schema.json), and the folder-level import graph in docs/architecture.md from
// the sources. Tests compare each with what this script would write (`npm run docs` updates them).
// Node >= 22.18 loads the .ts modules with its built-in type stripping.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

const cell = (text) => text.replace(/\|/g, '\\|');

/** docs/errors.md, from the table of codes. */
function renderErrorDocs({ ERROR_AREAS, ERROR_CODES }) {
  const lines = [
    '# Errors',
    '',
    '<!-- Generated from src/errors/codes.ts by `npm run docs`; edit the table there. -->',
    '',
    'Every error jest-understudy throws, and every reason it fails a test, carries a stable `code`; the',
    'message is for people and may change. Test for a code with `isUnderstudyError`, which works across',
    "Jest's realms (the environment and the test file load separate copies of the package, so",
    '`instanceof` can fail there):',
    '',
    '```ts fragment',
    "import { isUnderstudyError } from 'jest-understudy';",
    '',
    "if (isUnderstudyError(error, 'RECORD_KEY_MISSING')) console.log(error.message);",
    '```',
    '',
    'The classes (exported by `jest-understudy`): `UnderstudyError`, which every code below but the tool',
    'failures is; `FixtureFileError`, `WorldFileError` and `GoldenFileError`, which extend `FileIssuesError`',
    'and list every problem of a file at once in `issues` (each with its `file`, `line`, `column`, JSON',
    '`path`, `message` and `suggestion`), as `OptionsError` (`jest-understudy/environment`) does for the',
    'options; and `WorldError`, a world API used wrongly. A failure the agent may have swallowed (an',
    'unmatched model request, a refused connection, a world defect…) fails the test at its end as an',
    '`UnderstudyError` with its code. The first line of a printed error names the code:',
    '`UnderstudyError [MODEL_UNMATCHED]: No fixture matched …`.',
    '',
    'A `mockTool` callable that fails throws a `ToolMockError`: not an `UnderstudyError`, since it is',
    "the simulated tool's own failure; its `code` is the operation's (declared in the world file) or one",
    'of the engine codes under "Tool failures" below, with `status`, `retryable` and the `envelope` an',
    'HTTP client would get.',
  ];
  const codes = Object.entries(ERROR_CODES);
  for (const [area, title] of Object.entries(ERROR_AREAS)) {
    const inArea = codes.filter(([, info]) => info.area === area);
    if (inArea.length === 0) continue;
    lines.push('', `## ${title}`, '', '| Code | What happened | What to do |', '|---|---|---|');
    for (const [code, info] of inArea) lines.push(`| \`${code}\` | ${cell(info.meaning)} | ${cell(info.action)} |`);
  }
  return `${lines.join('\n')}\n`;
}

const GRAPH = /(```text graph\n)[\s\S]*?(```)/;

/** docs/architecture.md with its graph block set to `graph` (lines `unit -> units`). */
function withGraph(doc, graph) {
  if (!GRAPH.test(doc)) throw new Error('docs/architecture.md has no ```text graph block');
  return doc.replace(GRAPH, (_, open, close) => `${open}${graph.join('\n')}\n${close}`);
}

/** A schema's accepted values, as the table's type column shows them. */
function typeOf(schema) {
  if (schema.title) return schema.title;
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeOf))].join(' | ');
  if (schema.type === 'array') {
    const item = schema.items ? typeOf(schema.items) : 'value';
    return item.includes(' | ') ? `(${item})[]` : `${item}[]`;
  }
  return schema.type ?? 'value';
}

/**
 * The rows of the options table: every option and the options of its object values (one level
 * down, which is where the schema's descriptions stop being about a single field).
 */
function renderOptionsTable(schema) {
  const lines = ['| Option | Type | What it does |', '|---|---|---|'];
  const rows = (properties, prefix, depth) => {
    for (const [name, option] of Object.entries(properties ?? {})) {
      const path = `${prefix}${name}`;
      lines.push(`| \`${path}\` | ${cell(typeOf(option))} | ${cell(option.description ?? '')} |`);
      if (depth === 0 && option.properties) rows(option.properties, `${path}.`, depth + 1);
    }
  };
  rows(schema.properties, '', 0);
  return lines.join('\n');
}

const OPTIONS = /(<!-- options:start[^>]*-->\n)[\s\S]*?(<!-- options:end -->)/;

/** docs/configuration.md with its options table set from the schema. */
function withOptionsTable(doc, schema) {
  if (!OPTIONS.test(doc)) throw new Error('docs/configuration.md has no <!-- options:start --> block');
  return doc.replace(OPTIONS, (_, open, close) => `${open}${renderOptionsTable(schema)}\n${close}`);
}

const ATTRIBUTES = /(<!-- attributes:start[^>]*-->\n)[\s\S]*?(<!-- attributes:end -->)/;

/** The attribute table of docs/traces.md: every attribute of src/trace/attributes.ts, in its order. */
function renderAttributeTable({ TRACE_ATTRIBUTES, TRACE_ATTRIBUTE_PREFIXES }) {
  const lines = ['| Attribute | Type | On | What it says |', '|---|---|---|---|'];
  const row = (name, info) =>
    lines.push(`| \`${name}\` | ${info.type} | ${info.on.join(', ')} | ${cell(info.meaning)} |`);
  for (const info of Object.values(TRACE_ATTRIBUTES)) row(info.name, info);
  for (const info of Object.values(TRACE_ATTRIBUTE_PREFIXES)) row(`${info.name}<field>`, info);
  return lines.join('\n');
}

/** docs/traces.md with its attribute table set from the table. */
function withAttributeTable(doc, table) {
  if (!ATTRIBUTES.test(doc)) throw new Error('docs/traces.md has no <!-- attributes:start --> block');
  return doc.replace(ATTRIBUTES, (_, open, close) => `${open}${renderAttributeTable(table)}\n${close}`);
}

module.exports = {
  renderAttributeTable,
  renderErrorDocs,
  renderOptionsTable,
  withAttributeTable,
  withGraph,
  withOptionsTable,
};

if (require.main === module) {
  // The package has no "type" field, so Node notes that it re-parsed the .ts modules as ESM.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.code !== 'MODULE_TYPELESS_PACKAGE_JSON') console.warn(warning);
  });
  const codes = require(join(root, 'src/errors/codes.ts'));
  writeFileSync(join(root, 'docs/errors.md'), renderErrorDocs(codes));
  console.log('wrote docs/errors.md');
  const configuration = join(root, 'docs/configuration.md');
  const schema = JSON.parse(readFileSync(join(root, 'schemas/options.schema.json'), 'utf8'));
  writeFileSync(configuration, withOptionsTable(readFileSync(configuration, 'utf8'), schema));
  console.log('wrote the options table of docs/configuration.md');
  const traces = join(root, 'docs/traces.md');
  const attributes = require(join(root, 'src/trace/attributes.ts'));
  writeFileSync(traces, withAttributeTable(readFileSync(traces, 'utf8'), attributes));
  console.log('wrote the attribute table of docs/traces.md');
  const { scanImports, unitGraph } = require(join(root, '__tests__/architecture/imports.ts'));
  const file = join(root, 'docs/architecture.md');
  const graph = unitGraph(scanImports(root, ['src', 'environment', 'matchers']));
  writeFileSync(file, withGraph(readFileSync(file, 'utf8'), graph));
  console.log('wrote the import graph of docs/architecture.md');
}
