// The test file's first request, through node:http (no TLS) to a host nothing serves, swallowed by
// the agent: the test still fails naming the host.
const { expect, it } = require('./runner-globals.cjs');
const http = require('node:http');

it('must fail: the first request of the file, node:http to a host nothing serves', async () => {
  const outcome = await new Promise((resolve) => {
    const request = http.get('http://first-plain-http.invalid/v1/models', (response) => {
      response.resume();
      resolve('answered');
    });
    request.on('error', () => resolve('failed'));
  });
  expect(outcome).toBe('failed');
});
