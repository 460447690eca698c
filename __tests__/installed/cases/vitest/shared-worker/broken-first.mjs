// Vitest's file order for the shared-worker cases: the broken file first, then the rest by name.
export default class BrokenFirst {
  async shard(files) {
    return files;
  }

  async sort(files) {
    const key = (file) => `${file.moduleId.endsWith('/broken.test.mjs') ? 0 : 1}${file.moduleId}`;
    return [...files].sort((x, y) => key(x).localeCompare(key(y)));
  }
}
