/**
 * Every code block of the README and docs/ is either run by the doc tests (inside a
 * `<!-- doc-test: name -->` section) or says that it is not: output is ```` ```text ````, and an
 * example that does not run alone is tagged ```` ```ts fragment ````.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { unmarkedBlocks } from './markdown';

const root = join(__dirname, '..', '..');
const markdownIn = (folder: string) =>
  readdirSync(join(root, folder))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `${folder}/${name}`);
const pages = [
  'README.md',
  ...markdownIn('docs'),
  ...markdownIn('docs/decisions'),
  ...readdirSync(join(root, 'examples'))
    .map((name) => `examples/${name}/README.md`)
    .filter((path) => existsSync(join(root, path))),
];

describe('code blocks in the README, docs/ and the examples', () => {
  it.each(pages)('%s: each is run by the doc tests, output, or tagged a fragment', async (page) => {
    expect(await unmarkedBlocks(readFileSync(join(root, page), 'utf8'))).toEqual([]);
  });

  it('finds an example that neither runs nor says so', async () => {
    const page = [
      '```ts fragment',
      'expect(run).toHaveCalledTool(name);',
      '```',
      '',
      '<!-- doc-test: whole -->',
      '```ts',
      '// agent.test.ts',
      'test("x", () => {});',
      '```',
      '<!-- /doc-test -->',
      '',
      '```text',
      'PASS agent.test.ts',
      '```',
      '',
      '```js',
      'understudy.model.use(fixtures);',
      '```',
      '',
      '```',
      'no language at all',
      '```',
    ].join('\n');
    expect(await unmarkedBlocks(page)).toEqual([
      '```js\nunderstudy.model.use(fixtures);',
      '```\nno language at all',
    ]);
  });
});
