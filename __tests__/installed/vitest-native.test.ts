/**
 * Vitest's native forms from the packed tarball: `test` from `jest-understudy/vitest/test`, whose
 * fixtures `model`, `world` and `run` are the test file's session (whole tool loops on real SDKs,
 * plain and streamed, composed with a `test.extend` of one's own), typed for TypeScript, and wrong
 * agents failing under them as under the `understudy` handle.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { installedProject } from '../support/installed';
import { runInstalledVitest, type VitestRun } from '../support/installed-vitest';

const statusOf = (file: ChildFile) => Object.fromEntries(file.tests.map((t) => [t.title, t.status]));
const failureOf = (file: ChildFile, title: string) =>
  stripVTControlCharacters(file.tests.find((t) => t.title === title)?.failureMessages.join('\n') ?? '');

function only(run: VitestRun): ChildFile {
  if (run.files.length !== 1) throw new Error(`expected one file's results:\n${run.stdout}\n${run.stderr}`);
  return run.files[0];
}

describe('test from jest-understudy/vitest/test', () => {
  let passing: VitestRun;
  let wrong: VitestRun;
  let teardown: VitestRun;

  beforeAll(async () => {
    [passing, wrong, teardown] = await Promise.all([
      runInstalledVitest({ cases: ['native-fixtures.test.mjs'] }),
      runInstalledVitest({ cases: ['native-wrong.test.mjs'] }),
      runInstalledVitest({ cases: ['native-teardown.test.mjs'] }),
    ]);
  }, 180_000);

  it("gives the file's model, world and run: whole tool loops pass, and the reporter counts their runs", () => {
    expect(statusOf(only(passing))).toEqual({
      'are what the understudy handle gives': 'passed',
      'an OpenAI tool loop: the model answers, the world serves the tool, run records it': 'passed',
      'an OpenAI loop streamed': 'passed',
      'an Anthropic loop streamed': 'passed',
      'what a test used holds for that test only': 'passed',
      'composes with a test.extend of your own': 'passed',
    });
    expect(passing.code).toBe(0);
    // Four agent runs through the `run` fixture, seven model calls (two per loop, one greeting).
    expect(stripVTControlCharacters(passing.stderr)).toContain(
      'jest-understudy\n  4 agent runs\n  7 model calls replayed (anthropic 2, openai 5)\n  3 tool operations',
    );
  });

  it('fails wrong agents under the fixtures as under the handle, with the same messages', () => {
    const file = only(wrong);
    expect(statusOf(file)).toEqual({
      'an agent that drops the tool call fails the trajectory': 'failed',
      'an agent that answers before reading the note fails the final message': 'failed',
      'a request no fixture answers, swallowed by the agent, fails the test': 'failed',
      'a fixture an earlier test used does not answer this one': 'failed',
    });
    expect(wrong.code).toBe(1);
    expect(failureOf(file, 'an agent that drops the tool call fails the trajectory')).toContain(
      '0 calls received',
    );
    expect(
      failureOf(file, 'an agent that answers before reading the note fails the final message'),
    ).toContain('Expected final message: containing "draft"');
    expect(failureOf(file, 'a request no fixture answers, swallowed by the agent, fails the test')).toContain(
      'UnderstudyError [MODEL_UNMATCHED]',
    );
    expect(failureOf(file, 'a fixture an earlier test used does not answer this one')).toContain(
      'UnderstudyError [MODEL_UNMATCHED]',
    );
  });

  it("charges what a fixture's teardown does to its own test, not the next one", () => {
    const file = only(teardown);
    const failing = 'a request its fixture makes in teardown, swallowed, fails this test';
    expect(statusOf(file)).toEqual({ [failing]: 'failed', 'the next test is not charged with it': 'passed' });
    expect(failureOf(file, failing)).toContain('UnderstudyError [MODEL_UNMATCHED]');
    expect(failureOf(file, failing)).not.toContain('Before this test');
  });

  it("is typed: the fixtures and the matchers on Vitest's expect type-check, and misuse does not", () => {
    const project = passing.project;
    const typed = [
      "import { script } from 'jest-understudy';",
      "import { test, type UnderstudyFixtures } from 'jest-understudy/vitest/test';",
      "import { expect } from 'vitest';",
      '',
      "test('typed', async ({ model, world, run }) => {",
      "  model.use(script().user('hi').replies('hello'));",
      "  const result = await run(async () => 'hello');",
      "  expect(result).toHaveFinalMessage('hello');",
      '  const output: string | undefined = result.output;',
      '  const operations: number = world.operations.length;',
      "  const fixtures: Pick<UnderstudyFixtures, 'model'> = { model };",
      '  void output; void operations; void fixtures;',
      '  // @ts-expect-error the mock model has no such method',
      '  model.replyWith();',
      '  // @ts-expect-error run takes an agent function',
      "  await run('not an agent');",
      '  // @ts-expect-error a fixture this test does not have',
      "  test('inner', async ({ browser }) => browser);",
      '});',
      '',
    ].join('\n');
    writeFileSync(join(project, 'typed.test.mts'), typed);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['typed.test.mts'],
      }),
    );
    const tsc = join(installedProject(), 'node_modules', 'typescript', 'bin', 'tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);
});
