/**
 * Replays the cassette recorded by cassettes.case.ts (copied beside this file's name) with one
 * thing changed per test, as a developer would change the agent after recording.
 */
import { afterEach, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { supportAgent } from './support';

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

const refund = () => understudy.run(() => supportAgent('Sam here: was order A-1001 refunded?'));

it('replays unchanged', async () => {
  const run = await refund();
  expect(run.output).toContain('refunded');
});

it('replays with another model', async () => {
  process.env.CASE_MODEL = 'gpt-4.1';
  expect((await refund()).toolsCalled).toEqual(['lookup_order']);
});

it('replays with another tool result', async () => {
  process.env.CASE_STATUS = 'already_refunded';
  // The recorded answer still says "refunded": only the staleness check can tell.
  expect((await refund()).output).toContain('"status":"refunded"');
});

it('replays with another earlier message', async () => {
  process.env.CASE_NAME = 'Alex';
  expect((await refund()).toolsCalled).toEqual(['lookup_order']);
});

it('replays with the tool renamed', async () => {
  process.env.CASE_TOOL = 'find_order';
  await refund();
});

it('replays a note with another email address', async () => {
  const run = await understudy.run(() => supportAgent('Please email john.roe@example.com the receipt.'));
  // Recorded as <email-1>, answered with the address this request carries.
  expect(run.output).toBe('You said: Please email john.roe@example.com the receipt.');
});
