import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { save, supportAgent } from './support';

// A hook that rewrites the customer's name in match keys: replay would never find the fixture.
if (process.env.CASE_HOOK === 'match')
  understudy.model.redact((fixture) => {
    if (typeof fixture.match.userMessage === 'string')
      fixture.match.userMessage = fixture.match.userMessage.replace('Sam', '<name>');
  });

describe('support agent', () => {
  it('checks a refund', async () => {
    const run = await understudy.run(() => supportAgent('Sam here: was order A-1001 refunded?'));
    expect(run.error).toBeUndefined();
    expect(run.toolsCalled).toEqual([process.env.CASE_TOOL ?? 'lookup_order']);
    save('checks a refund', run);
  });

  it('answers a note', async () => {
    const run = await understudy.run(() =>
      supportAgent(process.env.CASE_NOTE ?? 'Please email jane.doe@example.com the receipt.'),
    );
    expect(run.error).toBeUndefined();
    expect(run.output).toMatch(/^You said: /);
    save('answers a note', run);
  });

  if (process.env.CASE_EXTRA)
    it('checks a second order', async () => {
      const run = await understudy.run(() => supportAgent('Where is order B-2002?'));
      expect(run.toolsCalled).toEqual(['lookup_order']);
      save('checks a second order', run);
    });
});
