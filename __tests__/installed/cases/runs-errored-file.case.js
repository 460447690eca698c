// A run made outside the tests (here in beforeAll) that no test looks at fails the file.
const { beforeAll, expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');

beforeAll(async () => {
  await understudy.run(async () => {
    throw new Error('crashed in beforeAll');
  });
});

it('never looks at the beforeAll run', () => {
  expect(1).toBe(1);
});
