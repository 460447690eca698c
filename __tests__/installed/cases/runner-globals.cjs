// The test API of the runner that runs the case, so a case is written once and runs under Jest
// (CommonJS and ESM) and under Vitest (`globals: true`). Under Vitest, `jest` is Vitest's `vi`
// (fake timers, spies): the cases call it as the global `jest`, which Jest gives each module itself.
if (typeof vi === 'undefined') module.exports = require('@jest/globals');
else {
  globalThis.jest = vi;
  module.exports = { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, test };
}
