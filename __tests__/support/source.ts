/** How the tests run the repository's TypeScript in a plain node process: see scripts/register-ts.cjs. */
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** node's arguments that run a TypeScript file of the repository from source. */
export const fromSource = (file: string): string[] => [
  '--require',
  join(root, 'scripts', 'register-ts.cjs'),
  file,
];

/** node's arguments that run the `understudy` CLI from source. */
export const SOURCE_CLI = fromSource(join(root, 'src', 'cli', 'main.ts'));
