import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../../support/fake-upstream';
import { type ChildResult, root, runJest } from './child-jest';

/**
 * Record against a fake provider on 127.0.0.1 (every protocol, plain and streamed, through
 * the official SDKs), then replay the written files in fresh child Jest runs with the
 * provider stopped and CI set, and compare the runs.
 */
const KEYS = {
  openai: 'sk-test-RECORDING0123456789abcdefXYZ',
  anthropic: 'sk-ant-test-RECORDING0123456789abcdef',
  gemini: 'gemini-test-RECORDING-0123456789abcdef',
};

const work = mkdtempSync(join(tmpdir(), 'understudy-record-'));
const cassettes = join(work, 'cassettes');
const runs = join(work, 'runs');
const cassetteOf = (caseFile: string) =>
  join(cassettes, '__tests__', 'e2e', 'record', 'cases', `${caseFile}.cassette.json`);

let upstream: FakeUpstream;
let understudy: Record<string, unknown>;
const children: Record<string, ChildResult> = {};
const upstreamRequests: Record<string, number> = {};

/** Environment of a child: no keys and no CI unless given. */
function env(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  return {
    CI: undefined,
    OPENAI_API_KEY: undefined,
    ANTHROPIC_API_KEY: undefined,
    GEMINI_API_KEY: undefined,
    GOOGLE_API_KEY: undefined,
    GOOGLE_GENERATIVE_AI_API_KEY: undefined,
    UNDERSTUDY_MODE: undefined,
    UNDERSTUDY_STRICT_CASSETTES: undefined,
    PROMPT_SUFFIX: undefined,
    ONLY_FIRST: undefined,
    UPSTREAM_URL: upstream.url,
    RUN_OUT: runs,
    ...extra,
  };
}

const withKeys = {
  OPENAI_API_KEY: KEYS.openai,
  ANTHROPIC_API_KEY: KEYS.anthropic,
  GEMINI_API_KEY: KEYS.gemini,
};

function allTests(result: ChildResult) {
  return result.files.flatMap((f) => f.tests.map((t) => ({ ...t, file: f.name, fileMessage: f.message })));
}

function failuresOf(result: ChildResult): string {
  return stripVTControlCharacters(
    result.files
      .flatMap((f) => [f.message, ...f.tests.flatMap((t) => t.failureMessages)])
      .filter((m) => m.trim() !== '')
      .join('\n'),
  );
}

function summaries(phase: string): Record<string, unknown> {
  const dir = join(runs, phase);
  const out: Record<string, unknown> = {};
  for (const name of readdirSync(dir)) out[name] = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  return out;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

beforeAll(async () => {
  upstream = await startFakeUpstream(KEYS);
  understudy = {
    providers: {
      openai: { baseURL: `${upstream.url}/openai/v1` },
      anthropic: { baseURL: `${upstream.url}/anthropic` },
      gemini: { baseURL: `${upstream.url}/gemini` },
    },
    cassetteDir: cassettes,
  };
  const count = async (name: string, run: () => Promise<ChildResult>) => {
    const before = upstream.requests.length;
    children[name] = await run();
    upstreamRequests[name] = upstream.requests.length - before;
  };
  // 1. Record mode over every protocol (and the first half of missing.case.ts).
  await count('record', () =>
    runJest({
      cases: ['agents.case.ts', 'missing.case.ts'],
      understudy,
      env: env({ ...withKeys, UNDERSTUDY_MODE: 'record', CASE_PHASE: 'record', ONLY_FIRST: '1' }),
    }),
  );
  // 2. record-missing: the first test replays, the second goes to the provider and is appended.
  await count('record-missing', () =>
    runJest({
      cases: ['missing.case.ts'],
      understudy,
      env: env({ ...withKeys, UNDERSTUDY_MODE: 'record-missing', CASE_PHASE: 'record' }),
    }),
  );
  // 3. A recording harness (and a live one) inside a replay-mode file.
  await count('harness', () =>
    runJest({ cases: ['harness.case.ts'], understudy, env: env({ ...withKeys, CASE_PHASE: 'record' }) }),
  );
  await upstream.close();
  // 4. Replay everything: fresh environments, no keys, CI set, the provider gone.
  children.replay = await runJest({
    cases: ['agents.case.ts', 'missing.case.ts', 'harness.case.ts'],
    understudy,
    env: env({ CI: 'true', CASE_PHASE: 'replay' }),
  });
}, 180_000);

afterAll(() => upstream?.close());

describe('record mode', () => {
  it('records every protocol, plain and streamed, through the official SDKs', () => {
    const record = children.record;
    expect(failuresOf(record)).toBe('');
    expect(allTests(record).map((t) => t.status)).toEqual([...Array(9).fill('passed'), 'pending']);
    // 8 agents × 2 model calls + 2 for the first order of missing.case.ts, all sent to the provider with its key.
    expect(upstreamRequests.record).toBe(18);
    expect(new Set(upstream.requests.map((r) => r.streamed))).toEqual(new Set([true, false]));
  });

  it('writes one cassette per test file, with recording metadata', () => {
    const cassette = JSON.parse(readFileSync(cassetteOf('agents.case.ts'), 'utf8'));
    expect(cassette.metadata).toEqual({
      recorder: 'jest-understudy',
      provider: ['openai', 'anthropic', 'gemini'],
      protocol: ['openai.chat', 'openai.responses', 'anthropic.messages', 'gemini.generateContent'],
      model: ['gpt-4o', 'claude-sonnet-4-6', 'gemini-2.5-flash'],
      // One system prompt and one tool manifest, whatever the protocol: one hash.
      promptHash: expect.stringMatching(/^[0-9a-f]{16}$/),
      packageVersion: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
      recordedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      mode: 'record',
    });
    expect(cassette.fixtures).toHaveLength(16);
    expect(cassette.fixtures[0]).toEqual({
      match: {
        userMessage: 'openai.chat plain: where are orders A-1001 and B-2002? (debug key=',
        turnIndex: 0,
        hasToolResult: false,
      },
      response: {
        toolCalls: [
          { name: 'lookup_order', arguments: { orderId: 'A-1001' }, id: 'call_up500x0' },
          { name: 'lookup_order', arguments: { orderId: 'B-2002' }, id: 'call_up500x1' },
        ],
        usage: { inputTokens: 31, outputTokens: 9 },
        model: 'gpt-4o-2026-01-01',
        // What identified the completion on the wire, so the SDK returns it again on replay.
        id: 'chatcmpl-understudy000500',
        created: 1767225600,
        systemFingerprint: 'fp_understudy',
        serviceTier: 'default',
      },
      metadata: {
        test: 'openai.chat plain > looks two orders up in parallel and answers',
        recordedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        requestHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        promptHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        systemHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        toolsHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        // The request it was recorded from, scrubbed: the key in the question is gone.
        request: {
          model: 'gpt-4o',
          system: 'You are terse. Look orders up before answering.',
          tools: ['lookup_order'],
          messages: [
            {
              role: 'user',
              text: 'openai.chat plain: where are orders A-1001 and B-2002? (debug key=[REDACTED])',
            },
          ],
        },
      },
    });
    expect(cassette.fixtures[1].metadata.request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        toolCalls: [
          { name: 'lookup_order', id: 'call_up500x0', arguments: { orderId: 'A-1001' } },
          { name: 'lookup_order', id: 'call_up500x1', arguments: { orderId: 'B-2002' } },
        ],
      },
      {
        role: 'tool',
        tool: 'lookup_order',
        toolCallId: 'call_up500x0',
        text: '{"orderId":"A-1001","status":"shipped"}',
      },
      {
        role: 'tool',
        tool: 'lookup_order',
        toolCallId: 'call_up500x1',
        text: '{"orderId":"B-2002","status":"packing"}',
      },
    ]);
  });

  it('never writes a key, a header or the placeholder into any file', () => {
    const files = [...walk(cassettes), join(runs, 'harness.fixture.yaml')];
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const key of Object.values(KEYS)) expect(text).not.toContain(key);
      expect(text).not.toMatch(/authorization|x-api-key|x-goog-api-key|never-stored|x-request-id/i);
    }
  });
});

describe('replay of the recordings', () => {
  it('passes in fresh environments with the provider stopped, no keys and CI set', () => {
    expect(failuresOf(children.replay)).toBe('');
    expect(allTests(children.replay).every((t) => t.status === 'passed')).toBe(true);
    expect(allTests(children.replay)).toHaveLength(12);
  });

  it('gives identical runs: outputs, tool calls with their ids and results, replies, usage', () => {
    const recorded = summaries('record');
    const replayed = summaries('replay');
    expect(Object.keys(replayed).sort()).toEqual(Object.keys(recorded).sort());
    expect(Object.keys(recorded)).toHaveLength(11);
    for (const name of Object.keys(recorded))
      expect({ name, ...(replayed[name] as object) }).toEqual({ name, ...(recorded[name] as object) });
  });
});

describe('record-missing mode', () => {
  it('replays what the cassette matches and sends only the rest to the provider, appending it', () => {
    expect(failuresOf(children['record-missing'])).toBe('');
    expect(upstreamRequests['record-missing']).toBe(2);
    const cassette = JSON.parse(readFileSync(cassetteOf('missing.case.ts'), 'utf8'));
    expect(cassette.fixtures.map((f: { match: { userMessage: string } }) => f.match.userMessage)).toEqual([
      'Where is order A-1111?',
      'Where is order A-1111?',
      'Where is order B-2222?',
      'Where is order B-2222?',
    ]);
    expect(cassette.metadata).toMatchObject({ mode: 'record-missing', updatedAt: expect.any(String) });
    expect(cassette.metadata.recordedAt < cassette.metadata.updatedAt).toBe(true);
  });
});

describe('the harness', () => {
  it('records with record: true, normalizes dynamic prompt values, runs the redact hook, and live mode writes nothing', () => {
    expect(failuresOf(children.harness)).toBe('');
    expect(upstreamRequests.harness).toBe(4);
    const yaml = readFileSync(join(runs, 'harness.fixture.yaml'), 'utf8');
    expect(yaml).toContain('userMessage: Where is order C-3003? Asked at <time>.');
    expect(yaml).toContain('reviewedBy: redact hook');
    expect(yaml).toMatch(/^metadata:\n {2}recorder: jest-understudy\n/);
  });
});

describe('refusals and staleness', () => {
  it('refuses record mode when CI is set, before anything runs', async () => {
    const result = await runJest({
      cases: ['missing.case.ts'],
      understudy,
      env: env({ ...withKeys, CI: 'true', UNDERSTUDY_MODE: 'record', CASE_PHASE: 'ci' }),
    });
    expect(result.code).toBe(1);
    const message = failuresOf(result);
    expect(message).toContain(
      'jest-understudy: UNDERSTUDY_MODE=record asks for record mode, but CI is set (CI="true")',
    );
    expect(message).toContain('CI replays committed fixtures');
    expect(existsSync(join(runs, 'ci'))).toBe(false);
  }, 60_000);

  it('refuses record mode without a provider key, naming the variables', async () => {
    const result = await runJest({
      cases: ['missing.case.ts'],
      understudy,
      env: env({ UNDERSTUDY_MODE: 'live', CASE_PHASE: 'nokey' }),
    });
    expect(failuresOf(result)).toContain(
      'jest-understudy: this test file runs in live mode, which calls the real provider with your key, but no provider key is set. Set OPENAI_API_KEY',
    );
  }, 60_000);

  it('warns once per stale fixture when the prompt changed, and fails with strictCassettes', async () => {
    const args = ['--testNamePattern', 'openai.chat plain'];
    const cases = ['agents.case.ts'];
    const changed = { PROMPT_SUFFIX: ' Always answer in French.', CASE_PHASE: 'stale' };
    const [warned, strict] = await Promise.all([
      runJest({ cases, understudy, args, env: env(changed) }),
      runJest({ cases, understudy, args, env: env({ ...changed, UNDERSTUDY_STRICT_CASSETTES: '1' }) }),
    ]);
    expect(failuresOf(warned)).toBe('');
    const warnings =
      stripVTControlCharacters(warned.stderr).match(/jest-understudy: stale cassette: fixture \(/g) ?? [];
    expect(warnings).toHaveLength(2);
    expect(warned.stderr).toContain(
      `fixture (${cassetteOf('agents.case.ts')} $.fixtures[0]) recorded in test "openai.chat plain > looks two orders up in parallel and answers" answered this openai.chat request`,
    );
    expect(stripVTControlCharacters(warned.stderr)).toContain(
      'but the system prompt changed: "…up before answering." → "…up before answering. Always answer in French." since it was recorded',
    );

    const failed = allTests(strict).find((t) => t.status === 'failed');
    expect(failed?.failureMessages.join('\n')).toContain('the system prompt changed: ');
    expect(failed?.failureMessages.join('\n')).toContain('or turn strictCassettes off to only warn');
  }, 60_000);
});
