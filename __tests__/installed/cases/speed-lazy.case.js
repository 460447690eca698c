// A Jest file under the preset pays for what it uses: the preset's setup file registers the
// matchers by name, and the package's sandbox bundle runs when the file first uses the package
// (here its `require`), not before; the matchers then load from it and judge the run.
const { basename } = require('node:path');
const { expect, it } = require('./runner-globals.cjs');
const { refundA1 } = require('./refund-agent.cjs');

// The bundles the environment runs in this file from here on (each through its loader's compiled copy).
const services = globalThis[Symbol.for('jest-understudy.host-services')];
const ran = [];
const runBundle = services.runBundle;
services.runBundle = (file, ...rest) => {
  ran.push(basename(file));
  return runBundle(file, ...rest);
};

it('has not run the sandbox bundle in a file that used nothing of the package', () => {
  expect(1 + 1).toBe(2);
  expect(ran).toEqual([]);
});

it('runs the sandbox bundle on first use; the matchers registered before it judge the run', async () => {
  const { script, understudy } = require('jest-understudy');
  expect(ran).toEqual(['sandbox.cjs']);
  understudy.model.use(script().user('refund A1').replies('Refunded A1.'));
  const run = await understudy.run(refundA1);
  expect(run).toHaveFinalMessage('Refunded A1.');
  expect(() => expect(run).toHaveFinalMessage('Declined')).toThrow(/Declined/);
  expect(() => expect(run).not.toHaveFinalMessage('Refunded A1.')).toThrow();
  expect(ran).toEqual(['sandbox.cjs']);
});
