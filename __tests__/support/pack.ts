/**
 * Jest globalSetup: builds and packs the package and installs the tarball into a scratch
 * consumer project (scripts/install-packed.cjs), so suites can run test files against the
 * installed package (see ./installed.ts). When UNDERSTUDY_INSTALLED_DIR names a project that
 * already has it installed (the CI consumer jobs, which `npm install` the tarball with other
 * Node, msw and SDK majors), that project is used instead.
 */
import { resolve } from 'node:path';

const { installPacked } = require('../../scripts/install-packed.cjs') as {
  installPacked(options: { root: string }): string;
};

export default function packAndInstall(): void {
  if (process.env.UNDERSTUDY_INSTALLED_DIR) return;
  process.env.UNDERSTUDY_INSTALLED_DIR = installPacked({ root: resolve(__dirname, '..', '..') });
  process.env.UNDERSTUDY_INSTALLED_OWNED = '1';
}
