/**
 * LangChain's ChatOllama over Ollama's native API from the installed package, under Jest
 * (CommonJS and ESM) and Vitest: `bindTools` in a LangGraph tool loop, plain and streamed. Each
 * "must fail" case fails with jest-understudy's message; the others pass.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, RUNNERS, runInstalledProjects } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

const failures = (file: ChildFile, title: string): string => {
  const test = file.tests.find((t) => t.title === title);
  if (!test) throw new Error(`no test "${title}":\n${file.message}`);
  expect(test.status).toBe('failed');
  return stripVTControlCharacters(test.failureMessages.join('\n'));
};

describe.each(runnersOf(__filename))('ChatOllama (%s)', (runner) => {
  let file: ChildFile;

  beforeAll(async () => {
    const runs = await runInstalledProjects(
      { chatollama: { cases: ['ollama-langchain.case.js'], understudy: { providers: { ollama: true } } } },
      RUNNERS[runner],
    );
    file = fileOf(runs.chatollama, 'ollama-langchain.case.js');
  }, 180_000);

  it('runs the LangGraph loop, plain and streamed', () => {
    const passing = file.tests.filter((t) => !t.title.includes('must fail'));
    expect(passing.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
      passing.map((t) => [t.title, 'passed', '']),
    );
    expect(passing).toHaveLength(2);
  });

  it.each(['plain', 'streamed'])('%s: a graph that never sends the results back fails the run', (how) => {
    const message = failures(file, `${how} must fail: a graph whose tools do not lead back to the model`);
    expect(message).toContain('toHaveCalledToolSequence');
    expect(message).toContain('refund_order');
  });

  it('wrong arguments and a tool never called fail the assertion, naming the calls made', () => {
    const args = failures(file, 'must fail: the test expects the refund of another order');
    expect(args).toContain('B-7');
    expect(args).toContain('A-1002');
    const tool = failures(file, 'must fail: the test expects a tool the agent never called');
    expect(tool).toContain('cancel_order');
    expect(tool).toContain('lookup_order');
  });
});
