/**
 * The repository's Jest transform: @swc/jest, and for the package's own files that run in the
 * sandbox (src/, matchers/, the Jest setup file) the prologue dist/sandbox.cjs starts with (see
 * ./sandbox-prologue.cjs), so the tests and the bench run the sandbox code as users get it.
 */
const { createHash } = require('node:crypto');
const { join, resolve } = require('node:path');
const swcJest = require('@swc/jest');
const { PROLOGUE, withPrologue } = require('./sandbox-prologue.cjs');

const root = resolve(__dirname, '..');
const SANDBOX_DIRS = ['src', 'matchers'].map((dir) => join(root, dir, '/'));
const SANDBOX_FILES = [join(root, 'environment', 'jest', 'setup.ts')];
const inSandbox = (path) => SANDBOX_DIRS.some((dir) => path.startsWith(dir)) || SANDBOX_FILES.includes(path);
const salt = createHash('sha256').update(PROLOGUE).digest('hex').slice(0, 12);

// What of a project's config the output depends on. Jest's default key holds the whole config,
// so a config that differs in anything else (a child run's trace folder) compiled every file again.
const stableConfig = (config) => JSON.stringify({ rootDir: config.rootDir, transform: config.transform });

function createTransformer(options) {
  const swc = swcJest.createTransformer(options);
  const shaped = (out, path) => {
    if (!inSandbox(path)) return out;
    return typeof out === 'string' ? withPrologue(out) : { ...out, code: withPrologue(out.code) };
  };
  return {
    ...swc,
    process: (source, path, config) => shaped(swc.process(source, path, config), path),
    processAsync: async (source, path, config) => shaped(await swc.processAsync(source, path, config), path),
    getCacheKey: (source, path, options) =>
      `${swc.getCacheKey(source, path, { ...options, configString: stableConfig(options.config) })}:${salt}`,
  };
}

module.exports = { createTransformer };
