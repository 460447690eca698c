// Fails when TRUTHFUL_FAIL is set; never edited: failing and passing on the same code is flaky.
const { expect, it } = require('./runner-globals.cjs');

it('depends on the weather', () => {
  expect(process.env.TRUTHFUL_FAIL).toBeUndefined();
});
