// Jest's retryTimes hides a flaky test: it fails its first attempt and passes on the retry.
const { expect, it } = require('./runner-globals.cjs');

jest.retryTimes(2);
let attempts = 0;

it('passes on the second attempt', () => {
  attempts++;
  expect(attempts).toBe(2);
});
