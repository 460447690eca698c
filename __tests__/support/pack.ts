/**
 * Jest globalSetup: builds the package, packs it the way `npm publish` would, and installs
 * the tarball into a scratch consumer project, so suites can run test files against the
 * installed package (see ./installed.ts). When UNDERSTUDY_INSTALLED_DIR names a project
 * that already has it installed (the CI consumer jobs, which `npm install` the tarball with
 * other Node, msw and SDK majors), nothing is built and that project is used instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

export default function packAndInstall(): void {
  if (process.env.UNDERSTUDY_INSTALLED_DIR) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const project = mkdtempSync(join(tmpdir(), 'understudy-installed-'));
  const tarball = execFileSync(npm, ['pack', '--ignore-scripts', '--silent', '--pack-destination', project], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop() as string;
  const modules = join(project, 'node_modules');
  const installed = join(modules, 'jest-understudy');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(project, tarball), '-C', installed, '--strip-components=1']);
  rmSync(join(project, tarball));
  // Every other package comes from the repository's own install (the same versions a consumer
  // would get from the lockfile); the package itself resolves only from the tarball.
  const linkAll = (from: string, to: string) => {
    for (const name of readdirSync(from)) {
      if (name === '.bin' || name === 'jest-understudy' || name.startsWith('.')) continue;
      if (name.startsWith('@')) {
        mkdirSync(join(to, name), { recursive: true });
        for (const inner of readdirSync(join(from, name)))
          if (!existsSync(join(to, name, inner))) symlinkSync(join(from, name, inner), join(to, name, inner));
      } else if (!existsSync(join(to, name))) symlinkSync(join(from, name), join(to, name));
    }
  };
  linkAll(join(root, 'node_modules'), modules);
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'understudy-consumer', private: true }, null, 2)}\n`,
  );
  process.env.UNDERSTUDY_INSTALLED_DIR = project;
  process.env.UNDERSTUDY_INSTALLED_OWNED = '1';
}
