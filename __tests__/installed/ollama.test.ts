/**
 * Ollama's native API from the installed package, under Jest (CommonJS and ESM) and Vitest: the
 * `ollama` client's tool loop over /api/chat, plain and streamed, /api/generate and /api/embed.
 * Each "must fail" case fails with jest-understudy's message; the others pass.
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

describe.each(runnersOf(__filename))('the ollama client (%s)', (runner) => {
  let file: ChildFile;

  beforeAll(async () => {
    const runs = await runInstalledProjects(
      { ollama: { cases: ['ollama-client.case.js'], understudy: { providers: { ollama: true } } } },
      RUNNERS[runner],
    );
    file = fileOf(runs.ollama, 'ollama-client.case.js');
  }, 180_000);

  it('passes the loops (in process and over the served port), generate, embed and the error', () => {
    const passing = file.tests.filter((t) => !t.title.includes('must fail'));
    expect(passing.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
      passing.map((t) => [t.title, 'passed', '']),
    );
    expect(passing).toHaveLength(5);
  });

  it.each(['plain', 'streamed'])(
    '%s: a wrong tool or wrong arguments fail the assertion, naming the call made',
    (how) => {
      const tool = failures(
        file,
        `${how} must fail: the test expects get_time, the model called get_weather`,
      );
      expect(tool).toContain('get_time');
      expect(tool).toContain('get_weather');
      const args = failures(file, `${how} must fail: the test expects other arguments than the model's`);
      expect(args).toContain('Lyon');
      expect(args).toContain('Paris');
    },
  );

  it.each(['plain', 'streamed'])('%s: an agent that ignores the tool result fails the test', (how) => {
    const message = failures(file, `${how} must fail: the agent ignores the tool result`);
    expect(message).toContain('Received: the agent ran no tool calls');
    expect(message).toContain(
      'The model requested "get_weather {\\"city\\": \\"Paris\\"}" (step 0), but the agent never ran it: no later request carried its result',
    );
  });

  it("a model the fixture file does not declare breaks the known-models contract, answered with Ollama's 404", () => {
    const message = failures(file, "must fail: a model the fixture file does not declare gets Ollama's 404");
    expect(message).toContain('Rule: known-models');
    expect(message).toContain('the request asks for the model "llama3.3"');
    expect(message).toContain('model "llama3.3" not found, try pulling it first');
    // The client got the 404 as the test expected: the contract alone fails it.
    expect(message).not.toContain('toMatchObject');
  });

  it('a reply that does not fit `format`, and a tool call on /api/generate, break their contracts', () => {
    const format = failures(file, 'must fail: a fixture whose reply does not fit the format schema');
    expect(format).toContain('Rule: structured-output');
    expect(format).toContain('format');
    const generate = failures(
      file,
      'must fail: a fixture that calls a tool on /api/generate, which offers none',
    );
    expect(generate).toContain('Rule: offered-tools');
    expect(generate).toContain('get_weather');
  });

  it('a tool message that answers no call breaks the tool-results contract', () => {
    const message = failures(file, 'must fail: a tool message that answers no call');
    expect(message).toContain('CONTRACT_BREACH');
    expect(message).toContain('tool-results');
  });
});
