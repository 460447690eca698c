/**
 * Every request belongs to exactly one test and one run, from the installed package under Jest
 * (CommonJS and ESM) and Vitest: a call made
 * after its run ended (a timer, background work) is refused and fails the test that made the run
 * while it runs, else the file, never the test running when it arrives; a served child's late
 * calls too; test.concurrent tests are refused. A routed browser page's: ./ownership-browser.test.ts.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, type InstalledProjectRun, messageOf, statuses } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

const plain = (text: string) => stripVTControlCharacters(text);

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'calls made after their run ended, in process (%s)',
  (_kind, runner) => {
    let file: ChildFile;
    beforeAll(async () => {
      file = fileOf(await sharedRun('ownership-late', runner), 'ownership-late.case.js');
    }, 120_000);

    it('fail the test that made the run while it runs, naming the call', () => {
      expect(statuses(file)).toEqual({
        'a model call a timer makes after its run ended, while the test still runs': 'failed',
        'a streamed Anthropic call a timer makes after its run ended': 'failed',
        'a mockTool call a timer makes after its run ended': 'failed',
        'an HTTP tool call a timer makes after its run ended': 'failed',
        'a streamed Gemini call a timer makes after its run ended': 'failed',
        'an embedding request a timer makes after its run ended': 'failed',
        'an MCP tool call a timer makes after its run ended': 'failed',
        'an agent that waits for its follow-up passes': 'passed',
        'test 1: leaves a model call that arrives in the next test': 'passed',
        'test 2: runs while the call of test 1 arrives, and sees only its own': 'passed',
        'test 3: leaves a request to a host nothing serves, which arrives in the next test': 'passed',
        'test 4: runs while the request of test 3 is refused, and is not failed for it': 'passed',
      });
      const model = plain(
        messageOf(file, 'a model call a timer makes after its run ended, while the test still runs'),
      );
      expect(model).toContain('RUN_ENDED');
      expect(model).toContain(
        'a openai.chat model call (POST https://api.openai.com/v1/chat/completions) was made after a run of the test "a model call a timer makes after its run ended, while the test still runs" had ended',
      );
      expect(plain(messageOf(file, 'a streamed Anthropic call a timer makes after its run ended'))).toContain(
        'a anthropic.messages model call (POST https://api.anthropic.com/v1/messages) was made after a run of the test',
      );
      expect(plain(messageOf(file, 'a mockTool call a timer makes after its run ended'))).toContain(
        'a world operation (refunds/refunds.issue, transport: direct) was made after a run of the test',
      );
      expect(plain(messageOf(file, 'a streamed Gemini call a timer makes after its run ended'))).toMatch(
        /a gemini\.generateContent model call \(POST https:\/\/generativelanguage\.googleapis\.com\/v1\w*\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse\) was made after a run of the test/,
      );
      expect(plain(messageOf(file, 'an embedding request a timer makes after its run ended'))).toContain(
        'an embedding request (POST https://api.openai.com/v1/embeddings) was made after a run of the test',
      );
      expect(plain(messageOf(file, 'an MCP tool call a timer makes after its run ended'))).toContain(
        'a world operation (refunds/refunds.issue, transport: mcp) was made after a run of the test',
      );
      expect(plain(messageOf(file, 'an HTTP tool call a timer makes after its run ended'))).toContain(
        'a world operation (refunds/refunds.issue, transport: http) was made after a run of the test',
      );
    });

    it('fail the file, not the next test, when the call arrives after its test ended', () => {
      const message = plain(file.message);
      expect(message).toContain('RUN_ENDED');
      expect(message).toContain(
        'a openai.chat model call (POST https://api.openai.com/v1/chat/completions) was made after a run of the test "test 1: leaves a model call that arrives in the next test" had ended',
      );
      expect(message).toContain(
        'GET https://tracker.invalid/collect reached the network layer, but nothing mocks it (transport: fetch, host: tracker.invalid, port: 443).',
      );
      expect(message).toContain(
        'It fails the test file: the test "test 3: leaves a request to a host nothing serves, which arrives in the next test" had ended when it arrived.',
      );
      expect(message).not.toMatch(/test [24]:/);
    });
  },
);

describe.each(rowsOf(__filename, EACH_RUNNER))("a served child's late calls (%s)", (_kind, runner) => {
  let run: InstalledProjectRun;
  beforeAll(async () => {
    run = await sharedRun('ownership-served', runner);
  }, 120_000);

  it("a served child's late call fails the file, never the test running when it arrives", () => {
    const file = fileOf(run, 'ownership-served.case.js');
    expect(statuses(file)).toEqual({
      'test 1: starts a child with the URLs read in the test, and ends before its call': 'passed',
      'test 2: runs while the child of test 1 calls, and sees only its own calls': 'passed',
      'test 3: starts a child inside a run, which outlives the run and the test': 'passed',
      'test 4: runs while the child of test 3 calls, and sees only its own calls': 'passed',
    });
    const message = plain(file.message);
    expect(message).toMatch(
      /POST \/run\/t\d+\/openai\/v1\/chat\/completions arrived over the served port with the token of the test "test 1: starts a child with the URLs read in the test, and ends before its call", which has already ended/,
    );
    expect(message).toMatch(
      /POST \/run\/r\d+\/openai\/v1\/chat\/completions arrived over the served port for a run that has already ended \(a run of the test "test 3: starts a child inside a run, which outlives the run and the test"\)/,
    );
    expect(message).not.toMatch(/test [24]:/);
  });
});

describe.each(rowsOf(__filename, EACH_RUNNER))('test.concurrent (%s)', (_kind, runner) => {
  let file: ChildFile;
  beforeAll(async () => {
    file = fileOf(await sharedRun('ownership-concurrent', runner), 'ownership-concurrent.case.js');
  }, 120_000);

  it('is refused at its first use of jest-understudy, failing that test whatever it caught', () => {
    expect(statuses(file)).toEqual({
      'a concurrent test that registers its fixtures and runs the agent': 'failed',
      'a concurrent guardrail: the agent must not refund A-2': 'failed',
      'a concurrent test that registers fixtures on a model it kept': 'failed',
      'a concurrent agent that swallows its refused model call': 'failed',
      'a concurrent tool call through a mockTool made at file level': 'failed',
      'a concurrent test that reads the URLs of a port served in beforeAll': 'failed',
      'a concurrent test whose request to a host nothing serves is refused': 'failed',
      'a concurrent test that does not use jest-understudy': 'passed',
      'a test after them uses the model and the world as usual': 'passed',
    });
    // The network policy's refusal is the test's own, not the next test's.
    expect(
      plain(messageOf(file, 'a concurrent test whose request to a host nothing serves is refused')),
    ).toContain(
      'UnderstudyError [UNHANDLED_REQUEST]: GET https://tracker.invalid/collect reached the network layer',
    );
    for (const test of file.tests.filter(
      (t) => t.status === 'failed' && !t.title.includes('nothing serves'),
    )) {
      const message = plain(test.failureMessages.join('\n'));
      expect(message).toContain('CONCURRENT_TEST');
      expect(message).toContain(`the concurrent test "${test.title}" (test.concurrent)`);
      expect(message).not.toContain('tracker.invalid');
    }
    expect(plain(messageOf(file, 'a concurrent agent that swallows its refused model call'))).toContain(
      'made a openai.chat model call (POST https://api.openai.com/v1/chat/completions)',
    );
    expect(plain(messageOf(file, 'a concurrent tool call through a mockTool made at file level'))).toContain(
      'made a world operation (refunds/refunds.issue, transport: direct)',
    );
    expect(file.message).not.toContain('Test suite failed to run');
    // Refused once per test: a refusal the body threw is not said again at its end.
    expect(
      messageOf(file, 'a concurrent guardrail: the agent must not refund A-2').match(/CONCURRENT_TEST/g),
    ).toHaveLength(1);
  });
});
