/**
 * The repository's Jest runtime: jest-runtime, with V8's code cache for the modules it compiles.
 * Jest compiles every module again for each test file (vm.compileFunction in the file's own
 * context), so the same SDKs and sources are compiled some 150 times in a run of the suite; with
 * the cache V8 reads the compiled code back instead. The cache is kept per process and, when
 * NODE_COMPILE_CACHE names a folder (the suite's globalSetup sets one), in its `jest-vm/` for
 * the next process. V8 checks each cache against the source, its version and its flags, and
 * compiles as usual when the cache does not fit, so what runs is the same either way. Entries
 * of sources that changed stay until the folder is cleared, as Jest's own transform cache does.
 */
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const vm = require('node:vm');

const PATCHED = Symbol.for('jest-understudy.vmCodeCache');

if (!vm.compileFunction[PATCHED]) {
  const compile = vm.compileFunction;
  const kept = new Map();
  let folder = process.env.NODE_COMPILE_CACHE ? join(process.env.NODE_COMPILE_CACHE, 'jest-vm') : undefined;
  try {
    if (folder) mkdirSync(folder, { recursive: true });
  } catch {
    // No folder to keep it in (read-only, full): the cache lives as long as the process.
    folder = undefined;
  }

  const read = (key) => {
    if (kept.has(key)) return kept.get(key);
    if (!folder) return undefined;
    try {
      return readFileSync(join(folder, key));
    } catch {
      return undefined;
    }
  };
  const keep = (key, data) => {
    kept.set(key, data);
    if (!folder) return;
    // Written whole under another name, then renamed: a reader never sees half a file.
    const part = join(folder, `${key}.${process.pid}.part`);
    try {
      writeFileSync(part, data);
      renameSync(part, join(folder, key));
    } catch {
      // A cache that cannot be written only means compiling again next time.
    }
  };

  const cached = function compileFunction(code, params, options = {}) {
    if (options.cachedData || options.produceCachedData) return compile.call(this, code, params, options);
    // Node 20 loses a function's import() callback when its code comes from a cache ("A dynamic
    // import callback was not specified"): a module that keeps an import() is compiled afresh.
    if (options.importModuleDynamically && code.includes('import(')) return compile.call(this, code, params, options);
    const key = createHash('sha1')
      .update(`${process.version}\0${(params ?? []).join(',')}\0`)
      .update(code)
      .digest('hex');
    const data = read(key);
    if (data) {
      const fn = compile.call(this, code, params, { ...options, cachedData: data });
      if (!fn.cachedDataRejected) return fn;
    }
    const fn = compile.call(this, code, params, { ...options, produceCachedData: true });
    if (fn.cachedData) keep(key, fn.cachedData);
    return fn;
  };
  cached[PATCHED] = true;
  vm.compileFunction = cached;
}

module.exports = require('jest-runtime');
