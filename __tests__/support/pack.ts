/**
 * Jest globalSetup: builds and packs the package and installs the tarball into a scratch
 * consumer project (scripts/install-packed.cjs), so suites can run test files against the
 * installed package (see ./installed.ts). When UNDERSTUDY_INSTALLED_DIR names a project that
 * already has it installed (the CI consumer jobs, which `npm install` the tarball with other
 * Node, msw and SDK majors), that project is used instead.
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const { installPacked } = require('../../scripts/install-packed.cjs') as {
  installPacked(options: { root: string }): string;
};

export default function packAndInstall(): void {
  // The suite starts some 150 child processes (child Jest runs, the CLI, npm), each loading the
  // same modules: Node's on-disk compile cache spares them compiling those again (Node 22.1+;
  // an older Node ignores the variable). Workers and children inherit it from here.
  process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'understudy-compile-cache');
  if (process.env.UNDERSTUDY_INSTALLED_DIR) return;
  process.env.UNDERSTUDY_INSTALLED_DIR = installPacked({ root: resolve(__dirname, '..', '..') });
  process.env.UNDERSTUDY_INSTALLED_OWNED = '1';
}
