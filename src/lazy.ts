/**
 * A public function whose module is required on its first call. The package entry is
 * evaluated in every test file that imports it (Jest keeps one module registry per file),
 * so entry points a file may never call (golden tasks, file loaders, the recorder) load late.
 */
export function lazyFunction<M, K extends keyof M>(load: () => M, name: K): M[K] {
  // The module is kept: in the bundle, each require of a module builds a new view of its exports.
  let loaded: M | undefined;
  return ((...args: unknown[]) => {
    loaded ??= load();
    return (loaded[name] as (...a: unknown[]) => unknown)(...args);
  }) as M[K];
}
