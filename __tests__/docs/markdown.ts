/**
 * Reading the repository's Markdown as a reader (and GitHub) does: headings and their anchors,
 * links, and the runnable sections the docs mark with `<!-- doc-test: name -->` …
 * `<!-- /doc-test -->`. marked and github-slugger are ES modules only, hence the dynamic imports.
 */
import { readFileSync } from 'node:fs';

export interface DocLink {
  href: string;
  text: string;
}

export interface RunnableBlock {
  /**
   * `sh` blocks are commands; every other block names its file on its first line (`// agent.js`), or
   * in its fence (```` ```ts title=jest.config.ts ````) when the file must start with something else.
   */
  kind: 'commands' | 'file';
  file?: string;
  text: string;
}

type Token = { type: string; href?: string; text?: string; depth?: number; lang?: string; raw: string };

async function lexer(): Promise<(markdown: string) => Token[]> {
  const { marked } = await import('marked');
  return (markdown) => {
    const tokens = marked.lexer(markdown);
    const all: Token[] = [];
    marked.walkTokens(tokens, (token) => {
      all.push(token as unknown as Token);
    });
    return all;
  };
}

/** The anchors GitHub gives the document's headings, in order. */
export async function anchorsOf(markdown: string): Promise<Set<string>> {
  const lex = await lexer();
  const { default: Slugger } = await import('github-slugger');
  const slugger = new Slugger();
  const anchors = new Set<string>();
  for (const token of lex(markdown))
    if (token.type === 'heading') anchors.add(slugger.slug(token.text ?? ''));
  return anchors;
}

export async function linksOf(markdown: string): Promise<DocLink[]> {
  const lex = await lexer();
  return lex(markdown)
    .filter((token) => token.type === 'link' && token.href !== undefined)
    .map((token) => ({ href: token.href as string, text: token.text ?? '' }));
}

const SECTION = /<!-- doc-test: ([\w-]+) -->\n([\s\S]*?)<!-- \/doc-test -->/g;

/** Every runnable section of a Markdown file, by name, its code blocks in order. */
export async function runnableSections(path: string): Promise<Map<string, RunnableBlock[]>> {
  const lex = await lexer();
  const sections = new Map<string, RunnableBlock[]>();
  for (const [, name, body] of readFileSync(path, 'utf8').matchAll(SECTION)) {
    const blocks = lex(body)
      .filter((token) => token.type === 'code')
      .map((token): RunnableBlock => {
        const text = token.text ?? '';
        if (token.lang === 'sh') return { kind: 'commands', text };
        const named = /^\s*```\w*\s+title=(\S+)/.exec(token.raw) ?? /^\/\/ (\S+)\n/.exec(text);
        if (!named)
          throw new Error(
            `${path} doc-test "${name}": a ${token.lang} block that names no file ("// <file>" first line or title=<file>):\n${text}`,
          );
        return { kind: 'file', file: named[1], text };
      });
    sections.set(name, blocks);
  }
  return sections;
}

/**
 * The code blocks of a page that the doc tests do not run and that do not say so: a block outside
 * every doc-test section must be output (```` ```text ````) or tagged a fragment
 * (```` ```ts fragment ````), so a reader knows which examples are checked by running them.
 */
export async function unmarkedBlocks(markdown: string): Promise<string[]> {
  const lex = await lexer();
  return lex(markdown.replace(SECTION, ''))
    .filter((token) => token.type === 'code' && /^\s*(```|~~~)/.test(token.raw))
    .filter((token) => {
      const info = /^\s*(?:```+|~~~+)([^\n]*)/.exec(token.raw)?.[1].trim().split(/\s+/) ?? [];
      return info[0] !== 'text' && !info.includes('fragment');
    })
    .map((token) => token.raw.split('\n').slice(0, 2).join('\n'));
}

/**
 * One bash script that does what the section says, in order: its commands as written, its files
 * written with the text shown (first line included).
 */
export function asScript(blocks: RunnableBlock[]): string {
  const lines = ['set -euo pipefail'];
  blocks.forEach((block, i) => {
    if (block.kind === 'commands') lines.push(block.text);
    else lines.push(`cat > ${block.file} <<'DOC_TEST_${i}'`, block.text, `DOC_TEST_${i}`);
  });
  return `${lines.join('\n')}\n`;
}
