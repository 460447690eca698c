/**
 * The support, booking and records examples under the Vitest plugin from the packed tarball: each
 * example's own agent, tools, flows and world, run by Vitest versions of a subset of its Jest tests
 * (cases/vitest/*-example.test.mts), with a wrong agent per example that must fail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { exampleFiles, runInstalledVitest, VITEST_CASES, type VitestRun } from '../support/installed-vitest';

/** A failure's first lines, without colours. */
function failure(file: ChildFile, title: string): string {
  const test = file.tests.find((t) => t.title === title);
  if (!test) throw new Error(`no test "${title}" in ${file.name}`);
  return stripVTControlCharacters(test.failureMessages[0] ?? '');
}

const statusOf = (file: ChildFile) => Object.fromEntries(file.tests.map((t) => [t.title, t.status]));

describe('the examples under Vitest', () => {
  let run: VitestRun;
  const file = (name: string) => {
    const found = run.files.find((f) => f.name.endsWith(`/${name}`));
    if (!found) throw new Error(`no results for ${name}:\n${run.stdout}\n${run.stderr}`);
    return found;
  };

  beforeAll(async () => {
    run = await runInstalledVitest({
      cases: ['support-example.test.mts', 'booking-example.test.mts', 'records-example.test.mts'],
      files: {
        ...exampleFiles('support-agent', 'support'),
        ...exampleFiles('booking-agent', 'booking'),
        // Its behavior module in JavaScript (Node 20 cannot require TypeScript; see records-behavior.cjs).
        ...exampleFiles('records-agent', 'records', {
          'records.world.yaml': readFileSync(
            join(__dirname, '..', '..', 'examples', 'records-agent', 'records.world.yaml'),
            'utf8',
          ).replace('./records.behavior.ts', './records.behavior.cjs'),
        }),
        'records/records.behavior.cjs': readFileSync(join(VITEST_CASES, 'records-behavior.cjs'), 'utf8'),
      },
    });
  }, 180_000);

  it('the support agent refunds once, plain and streamed, and an agent on another (empty) store fails', () => {
    const support = file('support-example.test.mts');
    expect(statusOf(support)).toEqual({
      'looks the order up, refunds it once and emails the customer (stream: false)': 'passed',
      'looks the order up, refunds it once and emails the customer (stream: true)': 'passed',
      'never refunds before the lookup, and stays within its tools': 'passed',
      'an agent wired to another (empty) order store fails the refund': 'failed',
      'looks two orders up at once': 'passed',
    });
    expect(support.message).toBe('');
    // The refund the agent reported failed (`{ error }` sent back to the model) does not pass as ok.
    expect(failure(support, 'an agent wired to another (empty) order store fails the refund')).toContain(
      'The call to "issue_refund" with matching arguments ended otherwise:\n  step 1: error (the tool result)',
    );
  });

  it('the booking agent rides out a busy calendar, and one that does not retry fails', () => {
    const booking = file('booking-example.test.mts');
    expect(statusOf(booking)).toEqual({
      'rides out a busy calendar (the tool retries) and books the customer once': 'passed',
      'offers only the free slots': 'passed',
      'an agent that does not retry fails on the busy calendar': 'failed',
    });
    expect(booking.message).toBe('');
    const said = failure(booking, 'an agent that does not retry fails on the busy calendar');
    expect(said).toContain('book_callback');
    expect(said).toContain('BUSY');
  });

  it('the records agent passes its drill with evidence, and one that does not retry fails it', () => {
    const records = file('records-example.test.mts');
    expect(statusOf(records)).toEqual({
      'answers the repeated save from its receipt and links each tool call to its operations': 'passed',
      'an agent that does not retry fails the drill': 'failed',
      'the same world serves a plain understudy.run: state and evidence are there to inspect': 'passed',
    });
    expect(records.message).toBe('');
    expect(failure(records, 'an agent that does not retry fails the drill')).toContain(
      'record-1 was saved exactly once',
    );
    expect(run.code).toBe(1);
  });
});
