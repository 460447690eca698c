// A retried test hides a flaky one: it fails its first attempt and passes on the retry. Jest retries
// the file's tests after jest.retryTimes; Vitest has no such call, and takes the test's `retry` option.
const { expect, it } = require('./runner-globals.cjs');

const underVitest = typeof vi !== 'undefined';
if (!underVitest) jest.retryTimes(2);
const retried = underVitest ? (name, fn) => it(name, { retry: 2 }, fn) : it;
let attempts = 0;

retried('passes on the second attempt', () => {
  attempts++;
  expect(attempts).toBe(2);
});
