/**
 * A fixture's teardown is part of its test: what the agent swallows there fails that test, not
 * the next one.
 */

import { test } from 'jest-understudy/vitest/test';
import { expect } from 'vitest';
import agents from './native-agents.cjs';

const withFollowUp = test.extend({
  followUp: async ({ run }, use) => {
    await use('follow up');
    // After the test body: the agent asks once more, nothing answers, and it swallows the error.
    await run(() => agents.openaiAgent('one more thing', () => ({})).catch(() => 'swallowed'));
  },
});

withFollowUp('a request its fixture makes in teardown, swallowed, fails this test', ({ followUp }) => {
  expect(followUp).toBe('follow up');
});

test('the next test is not charged with it', ({ model }) => {
  expect(model.calls).toEqual([]);
});
