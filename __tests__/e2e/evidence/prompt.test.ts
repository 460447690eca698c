/**
 * Prompt assembly checks, in a child Jest so the snapshot is a real one (written, then
 * failing when the prompt changes, then updated with -u).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { countPromptTokens, encodingFor, promptsText } from '../../../matchers/prompt';
import { root, runJest } from '../../support/child-jest';

const CASE = `
import { expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { ask } from '${join(root, '__tests__/e2e/evidence/cases/prompt-agent')}';

it('keeps the assembled prompt stable and small', async () => {
  understudy.model.use(script().user('hi').replies('Hello.'));
  const run = await understudy.run(() => ask('hi'));
  expect(run).toMatchPromptSnapshot();
  expect(run.modelCalls[0]).toHavePromptTokensBelow(120);
  expect(run).not.toHavePromptTokensBelow(20, { scope: 'system+tools' });
});
`;

describe('toMatchPromptSnapshot and toHavePromptTokensBelow', () => {
  it('write a real snapshot, fail when the prompt changes, and update with -u', async () => {
    const dir = mkdtempSync(join(require('node:os').tmpdir(), 'understudy-prompt-'));
    const file = join(dir, 'prompt.case.ts');
    writeFileSync(file, CASE);
    const snap = join(dir, '__snapshots__', 'prompt.case.ts.snap');
    const run = (args: string[], env: Record<string, string> = {}) =>
      runJest({ testMatch: [file], roots: [dir], args, env });

    const first = await run(['--ci=false']);
    expect(first.files[0].tests[0]).toMatchObject({ status: 'passed' });
    const written = readFileSync(snap, 'utf8');
    expect(written).toContain('exports[`keeps the assembled prompt stable and small: prompt 1`]');
    expect(written).toContain('You are a terse assistant. Answer in one sentence.');
    expect(written).toContain('search_docs: Search the product docs.');
    expect(written).toContain('"required": [');

    const changed = await run(['--ci'], { PROMPT_VARIANT: '1' });
    const failure = changed.files[0].tests[0];
    expect(failure.status).toBe('failed');
    expect(failure.failureMessages.join('\n')).toContain('toMatchPromptSnapshot');
    expect(failure.failureMessages.join('\n')).toContain('Also list every policy you know');

    const updated = await run(['--ci=false', '-u'], { PROMPT_VARIANT: '1' });
    expect(updated.files[0].tests[0].status).toBe('passed');
    expect(readFileSync(snap, 'utf8')).toContain('Also list every policy you know, in full detail.');
  }, 90_000);

  it('write the snapshot with the keys in use blanked', async () => {
    const dir = mkdtempSync(join(require('node:os').tmpdir(), 'understudy-prompt-'));
    const file = join(dir, 'prompt.case.ts');
    writeFileSync(file, CASE);
    const key = 'corp-gateway-secret-XYZ987';
    const run = await runJest({
      testMatch: [file],
      roots: [dir],
      args: ['--ci=false'],
      env: { PROMPT_LEAKS_KEY: '1', CORP_GATEWAY_KEY: key },
    });
    expect(run.files[0].tests[0]).toMatchObject({ status: 'passed' });
    const written = readFileSync(join(dir, '__snapshots__', 'prompt.case.ts.snap'), 'utf8');
    expect(written).toContain('Use the key [REDACTED] for the docs API.');
    expect(written).not.toContain(key);
  }, 90_000);

  const call = (system: string, model = 'gpt-4o') => ({
    index: 0,
    conversation: {
      model,
      messages: [
        { role: 'system' as const, text: system },
        { role: 'user' as const, text: 'hello there' },
      ],
      tools: [{ name: 'lookup', description: 'Looks things up.', parameters: { type: 'object' } }],
    },
  });

  it('count tokens with a real tokenizer, per part, and pick the encoding by model', () => {
    const t = countPromptTokens(call('You are a helpful assistant.'));
    expect(t).toEqual({
      total: t.system + t.tools + t.messages,
      system: 6,
      tools: expect.any(Number),
      messages: 2,
      encoding: 'o200k_base',
    });
    expect(countPromptTokens(call('You are a helpful assistant.'), { scope: 'system+tools' }).messages).toBe(
      0,
    );
    expect(encodingFor('gpt-4-turbo')).toBe('cl100k_base');
    expect(encodingFor('gpt-4o-mini')).toBe('o200k_base');
    expect(encodingFor('claude-sonnet-4')).toBe('o200k_base');
  });

  it('name the largest call of a run and its parts when over budget', () => {
    const big = call('word '.repeat(300).trim());
    expect(() =>
      expect({ modelCalls: [call('short'), { ...big, index: 1 }] }).toHavePromptTokensBelow(100),
    ).toThrow(
      /Received prompt tokens: \d+ \(the largest, model call 1 of 2; system 300, tools \d+, messages 2; o200k_base\)/,
    );
    expect(() => expect({ toolCalls: [] }).toHavePromptTokensBelow(100)).toThrow(/must be a model call/);
    expect(() => expect(big).toHavePromptTokensBelow(-1)).toThrow(/limit.* must be a positive number/);
  });

  it('show each distinct prompt of a run once', () => {
    expect(promptsText([call('A'), { ...call('A'), index: 1 }])).toBe(
      'system:\n  A\ntools (1):\n  lookup: Looks things up.\n    {\n      "type": "object"\n    }',
    );
    expect(promptsText([call('A'), { ...call('B'), index: 1 }])).toMatch(
      /^model call 0:\n {2}system:\n {4}A[\s\S]*\n\nmodel call 1:\n/,
    );
  });
});
