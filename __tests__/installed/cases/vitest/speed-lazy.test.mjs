// A Vitest file under the plugin pays for what it uses: until it asserts with a matcher of
// jest-understudy or imports the package, the package's sandbox bundle is not loaded; the
// matchers, registered by name before that, then load and judge the run.

import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
// The Jest cases' agent (cases/refund-agent.cjs), copied in by the driver.
import agent from './refund-agent.cjs';

// The bundle runs through its loader, from the worker's compiled copy (which leaves no entry in the
// module cache) or with `require`: the loader is in the module cache once anything of the package ran.
const bundleLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((file) =>
    /jest-understudy[\\/]dist[\\/](sandbox\.cjs|sandbox-loader\.js)$/.test(file),
  );

it('has not loaded the sandbox bundle in a file that used nothing of it', () => {
  expect(1 + 1).toBe(2);
  expect(bundleLoaded()).toBe(false);
});

it('registers the matchers before they load: a wrong final message still fails', async () => {
  const { script, understudy } = await import('jest-understudy');
  understudy.model.use(script().user('refund A1').replies('Refunded A1.'));
  const run = await understudy.run(agent.refundA1);
  expect(bundleLoaded()).toBe(true);
  expect(run).toHaveFinalMessage('Refunded A1.');
  expect(() => expect(run).toHaveFinalMessage('Declined')).toThrow(/Declined/);
  expect(() => expect(run).not.toHaveFinalMessage('Refunded A1.')).toThrow();
});
