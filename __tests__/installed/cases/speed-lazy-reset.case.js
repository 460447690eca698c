// The package loaded at the top of a file whose module registry is reset before each test
// (`resetModules`): the matchers, which load on first use after the reset, still judge the runs
// of the package the file loaded, and still fail a wrong expectation.
const { beforeEach, expect, it } = require('./runner-globals.cjs');
const { refundA1 } = require('./refund-agent.cjs');
const { script, understudy } = require('jest-understudy');

beforeEach(() => jest.resetModules());

it('judges a run made before the first matcher loaded', async () => {
  understudy.model.use(script().user('refund A1').replies('Refunded A1.'));
  const run = await understudy.run(refundA1);
  expect(run).toHaveFinalMessage('Refunded A1.');
  expect(() => expect(run).toHaveFinalMessage('Declined')).toThrow(/Declined/);
});

it('judges a run of a later test, after another reset', async () => {
  understudy.model.use(script().user('refund A1').replies('Refunded A1 again.'));
  const run = await understudy.run(refundA1);
  expect(run).toHaveFinalMessage('Refunded A1 again.');
  expect(() => expect(run).not.toHaveFinalMessage('Refunded A1 again.')).toThrow();
});
