// Fails when TRUTHFUL_FAIL is set; edited between two runs of the truthful flake history test.
const { expect, it } = require('./runner-globals.cjs');

it('is written test-first', () => {
  expect(process.env.TRUTHFUL_FAIL).toBeUndefined();
});
