/**
 * The docs as a reader follows them: every relative link of the README and docs/ reaches a file that
 * exists, and every #anchor a heading of that page; the landing README stays a landing page; the
 * generated parts are what the sources generate.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { anchorsOf, linksOf } from './markdown';

const root = join(__dirname, '..', '..');
const { withOptionsTable } = require('../../scripts/write-docs.cjs') as {
  withOptionsTable(doc: string, schema: unknown): string;
};

const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'bench/NOTES.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs/decisions')).map((name) => `docs/decisions/${name}`),
  ...readdirSync(join(root, 'examples'))
    .map((name) => `examples/${name}/README.md`)
    .filter((path) => existsSync(join(root, path))),
];

describe('links in the README, docs/ and the examples', () => {
  it.each(pages)('%s: every relative link and anchor resolves', async (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const broken: string[] = [];
    for (const { href } of await linksOf(text)) {
      if (/^[a-z]+:/i.test(href)) continue; // https:, mailto:
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const target = path === '' ? join(root, page) : join(root, dirname(page), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${href}: no file ${relative(root, target)}`);
        continue;
      }
      if (anchor !== undefined && statSync(target).isFile() && target.endsWith('.md')) {
        const anchors = await anchorsOf(readFileSync(target, 'utf8'));
        if (!anchors.has(anchor)) broken.push(`${href}: ${relative(root, target)} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the landing README', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');

  it('stays a landing page (about 250 lines at most) that links every docs page', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
    const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'));
    expect(docs.filter((name) => !readme.includes(`](docs/${name}`))).toEqual([]);
  });

  it('opens with the two commands for working on the repository: the examples, then the tests', () => {
    const commands = [...readme.matchAll(/```sh(?: fragment)?\n([^`]*?)```/g)].map((match) =>
      match[1].trim(),
    );
    expect(commands.slice(0, 2)).toEqual(['npm ci && npm run examples', 'npm test']);
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
    expect(scripts.examples).toContain('--selectProjects examples');
  });
});

describe('generated docs', () => {
  it('the options table of docs/configuration.md is what the options schema generates (run `npm run docs`)', () => {
    const doc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    const schema = JSON.parse(readFileSync(join(root, 'schemas', 'options.schema.json'), 'utf8'));
    expect(doc).toBe(withOptionsTable(doc, schema));
    for (const option of Object.keys(schema.properties)) expect(doc).toContain(`| \`${option}\` |`);
  });
});
