/**
 * Builds the package, packs it as `npm publish` would, and installs the tarball into a new
 * scratch consumer project: the package comes only from the tarball, every other package is
 * linked from the repository's own node_modules (the versions its lockfile pins). Used by the
 * installed-package test suites (__tests__/support/pack.ts) and by the suite benchmark.
 *
 *   installPacked({ root, prefix, build, dir }) -> the project's directory
 *
 * `dir` names the (new) folder to make the project in; by default a new folder in the temp folder
 * whose name starts with `prefix`. `build: false` packs the dist/ that is there.
 */
const { execFileSync } = require('node:child_process');
const {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

function linkAll(from, to) {
  for (const name of readdirSync(from)) {
    if (name === '.bin' || name === 'jest-understudy' || name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      mkdirSync(join(to, name), { recursive: true });
      for (const inner of readdirSync(join(from, name)))
        if (!existsSync(join(to, name, inner))) symlinkSync(join(from, name, inner), join(to, name, inner));
    } else if (!existsSync(join(to, name))) symlinkSync(join(from, name), join(to, name));
  }
}

function installPacked({ root, prefix = 'understudy-installed-', build = true, dir }) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  if (build) execFileSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const project = dir ?? mkdtempSync(join(tmpdir(), prefix));
  if (dir) mkdirSync(dir);
  const tarball = execFileSync(npm, ['pack', '--ignore-scripts', '--silent', '--pack-destination', project], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  const modules = join(project, 'node_modules');
  const installed = join(modules, 'jest-understudy');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(project, tarball), '-C', installed, '--strip-components=1']);
  rmSync(join(project, tarball));
  // The package's bins in node_modules/.bin, executable, as npm links them on install.
  const bins = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).bin ?? {};
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const [name, target] of Object.entries(bins)) {
    chmodSync(join(installed, target), 0o755);
    symlinkSync(join('..', 'jest-understudy', target), join(modules, '.bin', name));
  }
  linkAll(join(root, 'node_modules'), modules);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'understudy-consumer', private: true }, null, 2)}\n`);
  return project;
}

module.exports = { installPacked };
