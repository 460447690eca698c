import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildFile, runJest } from '../../support/child-jest';

function byTitle(results: ChildFile[], title: string) {
  for (const r of results) {
    const t = r.tests.find((x) => x.title === title);
    if (t) return { ...t, message: stripVTControlCharacters(t.failureMessages.join('\n')) };
  }
  throw new Error(`no test titled ${title}`);
}

describe('the environment, seen from outside a Jest run', () => {
  let results: ChildFile[] = [];
  beforeAll(async () => {
    const child = await runJest({
      testMatch: ['__tests__/e2e/environment/cases/*.case.ts'],
      understudy: { providers: { openai: { baseURL: 'https://llm-proxy.internal.test/openai/v1' } } },
    });
    results = child.files;
  }, 60_000);

  it('fails a test whose agent swallowed an unmatched model request, naming keys and nearest fixtures', () => {
    const t = byTitle(results, 'an agent that swallows the SDK error');
    expect(t.status).toBe('failed');
    expect(t.message).toContain(
      'No fixture matched this openai.chat request (POST https://api.openai.com/v1/chat/completions)',
    );
    expect(t.message).toContain('userMessage: "weather in Berlin"');
    expect(t.message).toContain('turnIndex: 0');
    expect(t.message).toContain('Nearest fixtures (2 of 2 registered)');
    expect(t.message).toContain('userMessage: "weather in Paris" does not occur in "weather in Berlin"');
    expect(t.message).toContain('toolName: wanted "issue_refund", the request offers []');
  });

  it('drops fixtures a test registered when it ends', () => {
    expect(byTitle(results, 'a later test in the same file is not affected').status).toBe('passed');
  });

  it('fails tests whose requests reached no mock, by fetch and by node:https', () => {
    const viaFetch = byTitle(results, 'fetch to an unmocked host');
    expect(viaFetch.status).toBe('failed');
    expect(viaFetch.message).toContain(
      'GET https://example.com/data reached the network layer, but nothing mocks it',
    );
    const viaHttps = byTitle(results, 'node:https to an unmocked host');
    expect(viaHttps.status).toBe('failed');
    expect(viaHttps.message).toContain('GET https://internal.example.org/health reached the network layer');
  });

  it('loads fixture files named by a docblock pragma, relative to the test file', () => {
    expect(byTitle(results, 'serves fixtures named by the docblock pragma').status).toBe('passed');
  });

  it('intercepts the base URLs the options add', () => {
    expect(byTitle(results, 'intercepts a configured base URL').status).toBe('passed');
  });

  it('charges an unmatched model call made in a beforeAll hook to the next test', () => {
    const t = byTitle(results, 'runs after a hook whose model call matched nothing');
    expect(t.status).toBe('failed');
    expect(t.message).toContain(
      'Before this test (in a beforeAll hook or at file level): No fixture matched',
    );
    expect(t.message).toContain('userMessage: "warm up"');
  });
});
