/**
 * Tags for the reporter and for `UNDERSTUDY_TAGS`: the file's docblock tags and the `@tag`s in titles.
 *
 * @understudy-tags smoke
 */

import { script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';

const ask = (content) =>
  new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content }],
  });

describe('billing @billing', () => {
  it('answers a refund question @refunds', async () => {
    understudy.model.use(script().user('refund?').replies('Refunded.'));
    const run = await understudy.run(() => ask('refund?'));
    expect(run).toHaveFinalMessage('Refunded.');
  });
});

it('a quarantined flaky test that fails', async () => {
  understudy.model.use(script().user('flaky?').replies('No.'));
  const run = await understudy.run(() => ask('flaky?'));
  expect(run).toHaveFinalMessage('Yes.');
});
