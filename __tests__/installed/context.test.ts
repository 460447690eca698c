/**
 * The world's one door for a tool call, from the installed package, under Jest (CommonJS and ESM)
 * and Vitest: a run that crashed gets no answer whatever carries its call, and nothing such a call
 * leaves waiting keeps the test process from ending.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { fileOf, type InstalledRun, RUNNERS, runInstalled, statuses } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

describe.each(runnersOf(__filename))('one door for every tool call (%s)', (runner) => {
  let run: InstalledRun;
  beforeAll(async () => {
    run = await runInstalled({ cases: ['context-crash.case.js'], ...RUNNERS[runner] });
  }, 180_000);

  it('holds the answer of a crashed run on every transport, and answers it without the crash', () => {
    expect(statuses(fileOf(run, 'context-crash.case.js'))).toEqual({
      'mockTool (async): the call never settles': 'passed',
      'mockTool (async): a failing call the crashed agent still makes is held too, and surfaces nowhere':
        'passed',
      'mockTool (sync): the call throws the crash instead of answering': 'passed',
      'an HTTP route in process: the answer never completes': 'passed',
      'MCP over Streamable HTTP in process: the tool result never comes': 'passed',
      'MCP over the in-process transport: the tool result never comes': 'passed',
      'the served port, a tool by name: the answer stalls': 'passed',
      'the served port, an HTTP route: the answer stalls': 'passed',
      'the served port, MCP: the answer stalls': 'passed',
      'the served port, a model request at the crash step: the answer stalls': 'passed',
      'a tool fake of a scenario: the call never settles': 'passed',
    });
  });

  // Each runner's own words for a process something keeps alive: Jest's "did not exit", Vitest's
  // "close timed out" and "something prevents … from exiting".
  it('lets the test process end when the file is done: no held call keeps it waiting', () => {
    expect(run.code).toBe(0);
    const output = run.stderr + run.stdout;
    for (const words of ['did not exit', 'close timed out', 'something prevents'])
      expect(output).not.toContain(words);
  });
});
