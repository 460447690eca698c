// The preset a consumer names as `preset: 'jest-understudy'`. It points at the built
// package, so it works from an installed tarball without any transform of ours.
const { join } = require('node:path');

const dist = join(__dirname, '..', '..', 'dist');

module.exports = {
  testEnvironment: join(dist, 'environment', 'jest', 'index.js'),
  setupFilesAfterEnv: [join(dist, 'environment', 'jest', 'setup.js')],
  // Jest's own runner (jest-circus), which also hands each file's jest-understudy counts to the reporter.
  testRunner: join(dist, 'environment', 'jest', 'test-runner.js'),
  // The summary after the run; setting `reporters` yourself replaces this list, so keep it there.
  reporters: ['default', join(dist, 'src', 'reporter', 'index.js')],
  // A test file's `setupServer(...)` (msw/node) is served by jest-understudy: its handlers answer
  // after provider and world hosts, without a second msw patching what the environment's intercepts.
  moduleNameMapper: { '^msw/node$': join(dist, 'src', 'sandbox', 'msw-node.js') },
  // msw resolves responses on microtasks; faking them would stall every mocked request.
  fakeTimers: { doNotFake: ['queueMicrotask'] },
};
