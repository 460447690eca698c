// The test file's first request made while the file loads, before any test, swallowed: the next
// test fails naming the host.
const { expect, it } = require('./runner-globals.cjs');

const loading = fetch('https://first-top-level.invalid/v1/models').then(
  () => 'answered',
  () => 'failed',
);

it('must fail: a request the file made while it loaded', async () => {
  expect(await loading).toBe('failed');
});
