// The test file's first request, through the undici package to a host nothing serves, swallowed
// by the agent: the test still fails naming the host.
const { expect, it } = require('./runner-globals.cjs');
const { request } = require('undici');

it('must fail: the first request of the file, the undici package to a host nothing serves', async () => {
  const outcome = await request('https://first-undici.invalid/v1/models').then(
    (response) => response.body.dump().then(() => 'answered'),
    () => 'failed',
  );
  expect(outcome).toBe('failed');
});
