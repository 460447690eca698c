/**
 * The quarantine and the history: FLAKY_FAIL=1 fails the flaky test this run, REGULAR_FAIL=1 a
 * test that is not quarantined. The key-named test puts the provider key in its own name.
 */
const { describe, expect, it } = require('./runner-globals.cjs');

describe('quarantine', () => {
  it('always fails', () => {
    expect('the agent').toBe('fixed');
  });

  it('passes now', () => {
    expect(true).toBe(true);
  });
});

it('sometimes fails', () => {
  expect(process.env.FLAKY_FAIL).not.toBe('1');
});

it('regular', () => {
  expect(process.env.REGULAR_FAIL).not.toBe('1');
});

it(`names the key ${process.env.OPENAI_API_KEY}`, () => {
  expect(true).toBe(true);
});
