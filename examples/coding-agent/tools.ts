/**
 * The coding agent's file tools, as it runs them in production: plain fs calls on the
 * repository it works in (`root`). Tests replace them with the world's workspace
 * operations (mockTool), or let them run as they are inside the workspace folder.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[]) =>
  ({
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties, required, additionalProperties: false },
    },
  }) satisfies ChatCompletionFunctionTool;

const path = { type: 'string', description: 'Relative to the repository root.' };

export const TOOL_DEFINITIONS: ChatCompletionFunctionTool[] = [
  fn('list_dir', 'Lists a folder of the repository.', { path }, []),
  fn('grep', 'Finds lines matching a regular expression.', { pattern: { type: 'string' } }, ['pattern']),
  fn('read_file', 'Reads a file.', { path }, ['path']),
  fn(
    'edit_file',
    'Replaces old_string (which must occur once) with new_string in a file.',
    { path, old_string: { type: 'string' }, new_string: { type: 'string' } },
    ['path', 'old_string', 'new_string'],
  ),
];

type Args = Record<string, string>;

function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** The tools by name; each takes the model's arguments and resolves to a JSON value. */
export const fileTools = {
  root: process.cwd(),

  async list_dir(args: Args): Promise<unknown> {
    const entries = readdirSync(join(fileTools.root, args.path ?? '.'), { withFileTypes: true });
    return { entries: entries.map((e) => ({ name: e.name, type: e.isDirectory() ? 'directory' : 'file' })) };
  },

  async grep(args: Args): Promise<unknown> {
    const regex = new RegExp(args.pattern);
    const matches = walk(fileTools.root).flatMap((file) =>
      readFileSync(join(fileTools.root, file), 'utf8')
        .split('\n')
        .flatMap((text, i) => (regex.test(text) ? [{ path: file, line: i + 1, text }] : [])),
    );
    return { matches };
  },

  async read_file(args: Args): Promise<unknown> {
    return { path: args.path, content: readFileSync(join(fileTools.root, args.path), 'utf8') };
  },

  async edit_file(args: Args): Promise<unknown> {
    const file = join(fileTools.root, args.path);
    const text = readFileSync(file, 'utf8');
    const parts = text.split(args.old_string);
    if (parts.length !== 2) throw new Error(`old_string must occur once in ${args.path}`);
    writeFileSync(file, parts.join(args.new_string));
    return { path: args.path, replacements: 1 };
  },
};

export type ToolName = 'list_dir' | 'grep' | 'read_file' | 'edit_file';
