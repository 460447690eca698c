// The test file's first request, a fetch to a host nothing serves, swallowed by the agent: the
// network is contained before the file's first line runs, so the test still fails naming the host.
const { expect, it } = require('./runner-globals.cjs');

it('must fail: the first request of the file, a fetch to a host nothing serves', async () => {
  const outcome = await fetch('https://first-fetch.invalid/v1/models').then(
    () => 'answered',
    () => 'failed',
  );
  expect(outcome).toBe('failed');
});
