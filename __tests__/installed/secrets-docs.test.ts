/**
 * What tripped a new user in the docs, from the installed package: the source documents' live-test
 * guard (`process.env.OPENAI_API_KEY ? it : it.skip`) does not skip under replay, whose placeholder
 * key is set before the file loads; the failure says so and points to live(), which skips. And
 * docs/world.md's example, run as written in a TypeScript project with @swc/jest: the world file,
 * its behavior module, the client module and the tests, plus checks of what the page says around them.
 */
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type RunnableBlock, runnableSections } from '../docs/markdown';
import { type InstalledRun, RUNNERS, runInstalled } from '../support/installed';
import { SKIPPED } from '../support/runner-output';
import { runnersOf } from '../support/runner-tier';

describe.each(runnersOf(__filename))(
  'a live test guarded by the key variable, in replay mode (%s)',
  (runner) => {
    let run: InstalledRun;

    beforeAll(async () => {
      run = await runInstalled({
        cases: ['secrets-docs-live-guard.case.js'],
        ...RUNNERS[runner],
        env: { CI: undefined },
      });
    }, 60_000);

    it('runs (the guard reads the placeholder) and fails saying why, pointing to live()', () => {
      const test = run.files[0].tests.find((t) => t.title.includes('guarded by the key variable'));
      expect(test?.status).toBe('failed');
      const message = stripVTControlCharacters(test?.failureMessages.join('\n') ?? '');
      expect(message).toContain('RECORD_KEY_MISSING');
      expect(message).toContain(
        'OPENAI_API_KEY holds jest-understudy\'s replay placeholder ("sk-understudy-replay"), not a key',
      );
      expect(message).toContain('a guard on the variable (`process.env.OPENAI_API_KEY ? it : it.skip`');
      expect(message).toContain(
        "Write a test that needs the real model with jest-understudy's `live(name, fn)`",
      );
    });

    it('live() skips it, saying why', () => {
      const test = run.files[0].tests.find((t) => t.title.includes('(live())'));
      expect(test?.status).toBe(SKIPPED[runner]);
      expect(stripVTControlCharacters(run.stderr)).toContain('live() runs only in live mode');
    });
  },
);

/** What the page says around its example, checked where the example runs. */
const PAGE_CHECKS: Record<string, string> = {
  'records.test.ts': `
// Appended by the test that runs docs/world.md: what the page says, checked.
test('the page: a save goes through the world and its behavior module', async () => {
  await expect(saveRecord('record-1', 'final')).resolves.toEqual({ id: 'record-1', text: 'final', version: 2 });
});

test('the page: a failed save rejects with the client error that error(envelope) builds', async () => {
  const error = await saveRecord('record-1', 'x'.repeat(501)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RecordStoreError);
  expect(error).toMatchObject({ name: 'RecordStoreError', code: 'TOO_LONG' });
});

let kept: ((id: string, text: string) => Promise<unknown>) | undefined;
test('the page: the callable of a test', () => {
  kept = jest.mocked(saveRecord).getMockImplementation();
  expect(kept).toBeDefined();
});

test('the page: a callable kept from an earlier test rejects: its binding expired with that test', async () => {
  await expect(kept!('record-1', 'late')).rejects.toMatchObject({ code: 'BINDING_EXPIRED' });
});
`,
  'records.spy.test.ts': `
import * as everything from './records-client';
import { runnersOf } from '../support/runner-tier';

test('the page: jest.spyOn cannot redefine a module function under @swc/jest', () => {
  expect(() => jest.spyOn(everything, 'saveRecord')).toThrow('Cannot redefine property: saveRecord');
});
`,
};

// The page's example is a Jest project's (its config names @swc/jest, its tests call jest.mocked and
// jest.spyOn on what @swc/jest compiles): it runs under Jest, CommonJS and ESM.
describe.each([
  ['CommonJS, no flag', false],
  ['with --experimental-vm-modules', true],
])("docs/world.md's example, run as written (TypeScript with @swc/jest, %s)", (_, esm) => {
  let run: InstalledRun;

  beforeAll(async () => {
    const sections = await runnableSections(join(__dirname, '..', '..', 'docs', 'world.md'));
    const blocks: RunnableBlock[] = ['world-file', 'world-behavior', 'world-test', 'world-spy'].flatMap(
      (name) => sections.get(name) ?? [],
    );
    const files = Object.fromEntries(
      blocks
        .filter((b) => b.kind === 'file')
        .map((b) => [b.file as string, `${b.text}\n${PAGE_CHECKS[b.file as string] ?? ''}`]),
    );
    run = await runInstalled({
      cases: ['records.test.ts', 'records.spy.test.ts'],
      files,
      config: {
        transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' } } }] },
      },
      understudy: { world: 'records.world.yaml' },
      esm,
    });
  }, 60_000);

  it('has the world file, the behavior module, the client, the tests and the spyOn example', async () => {
    const sections = await runnableSections(join(__dirname, '..', '..', 'docs', 'world.md'));
    expect(
      ['world-file', 'world-behavior', 'world-test', 'world-spy'].map((n) =>
        sections.get(n)?.map((b) => b.file),
      ),
    ).toEqual([
      ['records.world.yaml'],
      ['records.behavior.ts'],
      ['records-client.ts', 'records.test.ts'],
      ['records.spy.test.ts'],
    ]);
  });

  it('runs every test of the page and its checks, and they pass', () => {
    const results = run.files
      .flatMap((f) => [
        ...(f.message ? [[f.name, 'file', stripVTControlCharacters(f.message)]] : []),
        ...f.tests.map((t) => [t.title, t.status, stripVTControlCharacters(t.failureMessages.join('\n'))]),
      ])
      .sort();
    expect(results).toEqual(
      [
        ['a draft over 500 characters is refused', 'passed', ''],
        ['saves through the world', 'passed', ''],
        [
          'the page: a callable kept from an earlier test rejects: its binding expired with that test',
          'passed',
          '',
        ],
        ['the page: a failed save rejects with the client error that error(envelope) builds', 'passed', ''],
        ['the page: a save goes through the world and its behavior module', 'passed', ''],
        ['the page: jest.spyOn cannot redefine a module function under @swc/jest', 'passed', ''],
        ['the page: the callable of a test', 'passed', ''],
      ].sort(),
    );
  });
});
