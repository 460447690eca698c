/**
 * No false green over the served port: a child process that swallows the error it got (a 404
 * for an unmatched call, a path nothing serves, a run that has ended) must not make its test
 * pass. Run in a child Jest, where a test failed by the environment can be seen.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildRun, type ChildTest, runJest } from '../../support/child-jest';

let run: ChildRun;
beforeAll(async () => {
  run = await runJest({ testMatch: ['__tests__/e2e/serve/cases/served-failures.case.ts'] });
}, 120_000);

function test(title: string): ChildTest {
  const found = run.files[0]?.tests.find((t) => t.title === title);
  if (!found) throw new Error(`no test "${title}" in:\n${run.stdout}\n${run.stderr}`);
  return found;
}

describe('children that swallow errors over the served port', () => {
  it('an unmatched model call fails the test, with a timeline of the call', () => {
    const t = test('a child that swallows an unmatched model call');
    expect(t.status).toBe('failed');
    const message = t.failureMessages.join('\n');
    expect(message).toContain('MODEL_UNMATCHED');
    expect(message).toContain(
      'No fixture matched this openai.chat request (POST https://api.openai.com/v1/chat/completions)',
    );
    expect(message).toContain('userMessage: "a question nobody scripted"');
    const html = /Understudy timeline: +(\S.*\.trace\.html)/.exec(message)?.[1];
    expect(html).toBeDefined();
    const page = readFileSync(html!.startsWith('/') ? html! : `${run.dir}/${html}`, 'utf8');
    expect(page).toContain('a question nobody scripted');
  });

  it('a path the port does not serve fails the test, naming what it serves', () => {
    const t = test('a child that calls a path the port does not serve');
    expect(t.status).toBe('failed');
    const message = t.failureMessages.join('\n');
    expect(message).toContain('SERVED_UNROUTED');
    expect(message).toContain('GET /v1/models arrived over the served port, and nothing there serves it');
    expect(message).toContain('/openai/…');
  });

  it('a call of a run that has ended fails the test', () => {
    const t = test('a child that outlives its run');
    expect(t.status).toBe('failed');
    const message = t.failureMessages.join('\n');
    expect(message).toContain('RUN_ENDED');
    expect(message).toMatch(
      /POST \/run\/r\d+\/openai\/v1\/chat\/completions arrived over the served port for a run that has already ended/,
    );
  });

  it('a tool call of an operation the world does not have fails the test', () => {
    const t = test('a shell agent that swallows a failed tool call of an operation the world does not have');
    expect(t.status).toBe('failed');
    const message = t.failureMessages.join('\n');
    expect(message).toContain('UNKNOWN_OPERATION');
    expect(message).toContain(
      'understudy tool call orders/orders.cancel: package "orders" has no operation "orders.cancel"',
    );
  });
});
