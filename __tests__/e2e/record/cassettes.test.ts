/**
 * Cassettes that stay honest, recorded against two loopback stand-ins for the provider (the
 * fake upstream built from our codecs, and aimock as an independent one), then replayed in
 * fresh child Jest runs with CI set and no key: what changed since the recording is reported
 * in words, a partial re-record keeps the other tests' fixtures, retries and repeated requests
 * replay in recorded order, a redact hook that breaks replay is refused, personal data is kept
 * as placeholders that still replay.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { LLMock } from '@copilotkit/aimock';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../../support/fake-upstream';
import { type ChildResult, runJest } from './child-jest';

const KEYS = { openai: 'sk-test-CASSETTES0123456789abcdefXYZ', anthropic: 'unused', gemini: 'unused' };
const work = mkdtempSync(join(tmpdir(), 'understudy-cassettes-'));
const runs = join(work, 'runs');
const dirOf = (name: string) => join(work, name);
const cassetteIn = (dir: string, caseFile: string) =>
  join(dir, '__tests__', 'e2e', 'record', 'cases', `${caseFile}.cassette.json`);
const MAIN = dirOf('cassettes');

let upstream: FakeUpstream;
let aimock: LLMock;
let understudy: Record<string, unknown>;
const child: Record<string, ChildResult> = {};
const sent: Record<string, number> = {};

function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    CI: undefined,
    OPENAI_API_KEY: undefined,
    UNDERSTUDY_MODE: undefined,
    UNDERSTUDY_STRICT_CASSETTES: undefined,
    CASE_MODEL: undefined,
    CASE_STATUS: undefined,
    CASE_NAME: undefined,
    CASE_TOOL: undefined,
    CASE_NOTE: undefined,
    CASE_EXTRA: undefined,
    CASE_HOOK: undefined,
    RUN_OUT: runs,
    ...extra,
  };
}
const recording = (phase: string, extra: Record<string, string | undefined> = {}) =>
  env({ OPENAI_API_KEY: KEYS.openai, UNDERSTUDY_MODE: 'record', CASE_PHASE: phase, ...extra });
const replaying = (phase: string, extra: Record<string, string | undefined> = {}) =>
  env({ CI: 'true', CASE_PHASE: phase, ...extra });

const text = (result: ChildResult) =>
  stripVTControlCharacters(
    [
      result.stderr,
      ...result.files.flatMap((f) => [f.message, ...f.tests.flatMap((t) => t.failureMessages)]),
    ].join('\n'),
  );
const failures = (result: ChildResult) =>
  stripVTControlCharacters(
    result.files
      .flatMap((f) => [f.message, ...f.tests.flatMap((t) => t.failureMessages)])
      .filter((m) => m.trim() !== '')
      .join('\n'),
  );
const statusOf = (result: ChildResult) =>
  Object.fromEntries(result.files.flatMap((f) => f.tests.map((t) => [t.title, t.status])));
const testMessage = (result: ChildResult, title: string) =>
  stripVTControlCharacters(
    result.files
      .flatMap((f) => f.tests.filter((t) => t.title === title))
      .flatMap((t) => t.failureMessages)
      .join('\n'),
  );
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const summaries = (phase: string) =>
  Object.fromEntries(readdirSync(join(runs, phase)).map((n) => [n, read(join(runs, phase, n))]));
const groupOf = (fixtures: Array<{ metadata?: { test?: string } }>, test: string) =>
  fixtures.filter((f) => f.metadata?.test === test);

const REFUND = 'support agent > checks a refund';
const NOTE = 'support agent > answers a note';
let recorded: { fixtures: any[] };

beforeAll(async () => {
  upstream = await startFakeUpstream(KEYS);
  aimock = new LLMock({ port: 0, host: '127.0.0.1' });
  // A 429 the SDK retries, then the answer; and one request asked twice, answered in order.
  aimock.on(
    { userMessage: 'Are you busy?', sequenceIndex: 0 },
    { error: { message: 'Rate limit reached', type: 'rate_limit_error' }, status: 429, retryAfter: 0 },
  );
  aimock.on({ userMessage: 'Are you busy?', sequenceIndex: 1 }, { content: 'Done after a retry.' });
  aimock.on({ userMessage: 'Roll a die.', sequenceIndex: 0 }, { content: '4' });
  aimock.on({ userMessage: 'Roll a die.', sequenceIndex: 1 }, { content: '2' });
  await aimock.start();
  understudy = {
    providers: { openai: { baseURL: [`${upstream.url}/openai/v1`, `${aimock.url}/v1`] } },
    cassetteDir: MAIN,
    redact: { pii: true },
  };
  const count = async (name: string, run: () => Promise<ChildResult>) => {
    const before = upstream.requests.length + aimock.getRequests().length;
    child[name] = await run();
    sent[name] = upstream.requests.length + aimock.getRequests().length - before;
  };
  const UPSTREAM_URL = upstream.url;
  // 1. Record both files: the support agent from the fake upstream, the ordered calls from aimock.
  await count('record', () =>
    runJest({
      cases: ['cassettes.case.ts', 'ordered.case.ts'],
      understudy,
      env: recording('record', { UPSTREAM_URL, AIMOCK_URL: aimock.url }),
    }),
  );
  recorded = read(cassetteIn(MAIN, 'cassettes.case.ts'));
  // The variants replay a copy of the support cassette, where the note claims an old recording date.
  cpSync(MAIN, dirOf('variants'), { recursive: true });
  const copy = structuredClone(recorded);
  copy.fixtures[2].metadata.recordedAt = '2025-01-01T00:00:00.000Z';
  writeFileSync(cassetteIn(dirOf('variants'), 'variants.case.ts'), JSON.stringify(copy, null, 2));
  cpSync(MAIN, dirOf('hooked'), { recursive: true });

  // 2. Replays, with the providers unreachable in spirit (CI set, no key) and counted: none is called.
  await count('replay', () =>
    runJest({
      cases: ['cassettes.case.ts', 'ordered.case.ts'],
      understudy,
      env: replaying('replay', { UPSTREAM_URL, AIMOCK_URL: aimock.url }),
    }),
  );
  const variants = { ...understudy, cassetteDir: dirOf('variants'), cassetteMaxAge: '90d' };
  const batch = upstream.requests.length + aimock.getRequests().length;
  await Promise.all([
    count('variants', () =>
      runJest({
        cases: ['variants.case.ts'],
        understudy: variants,
        env: replaying('variants', { UPSTREAM_URL }),
      }),
    ),
    count('variants-strict', () =>
      runJest({
        cases: ['variants.case.ts'],
        understudy: variants,
        env: replaying('variants-strict', { UPSTREAM_URL, UNDERSTUDY_STRICT_CASSETTES: '1' }),
      }),
    ),
    // 3. A redact hook that rewrites a match key: refused, nothing written.
    count('hooked', () =>
      runJest({
        cases: ['cassettes.case.ts'],
        understudy: { ...understudy, cassetteDir: dirOf('hooked') },
        args: ['-t', 'checks a refund'],
        env: recording('hooked', { UPSTREAM_URL, CASE_HOOK: 'match' }),
      }),
    ),
  ]);
  sent.batch = upstream.requests.length + aimock.getRequests().length - batch;

  // 4. Re-record one test (-t): the other test's fixtures stay as they were.
  await count('partial', () =>
    runJest({
      cases: ['cassettes.case.ts'],
      understudy,
      reporter: true,
      args: ['-t', 'answers a note'],
      env: recording('partial', {
        UPSTREAM_URL,
        CASE_NOTE: 'Please email jane.doe@example.com the invoice.',
      }),
    }),
  );
  // 5. record-missing with a new test: only its calls go to the provider.
  const note = { CASE_NOTE: 'Please email jane.doe@example.com the invoice.', CASE_EXTRA: '1' };
  await count('missing', () =>
    runJest({
      cases: ['cassettes.case.ts'],
      understudy,
      env: recording('missing', { UPSTREAM_URL, UNDERSTUDY_MODE: 'record-missing', ...note }),
    }),
  );
  await count('missing-replay', () =>
    runJest({
      cases: ['cassettes.case.ts'],
      understudy,
      env: replaying('missing-replay', { UPSTREAM_URL, ...note }),
    }),
  );
}, 240_000);

afterAll(async () => {
  await upstream?.close();
  await aimock?.stop();
});

describe('a recorded cassette', () => {
  it('records through both stand-ins, one call per request', () => {
    expect(failures(child.record)).toBe('');
    // The refund (lookup + answer) and the note (one answer); the 429 and its retry, and two rolls.
    expect(sent.record).toBe(3 + 4);
  });

  it('keeps each fixture with the scrubbed request it came from, grouped and labelled by test', () => {
    expect(recorded.fixtures.map((f) => f.metadata.test)).toEqual([REFUND, REFUND, NOTE]);
    const [, answer] = recorded.fixtures;
    expect(answer.metadata.request).toEqual({
      model: 'gpt-4o-mini',
      system: 'You are a support agent. Look orders up before answering.',
      tools: ['lookup_order'],
      messages: [
        { role: 'user', text: 'My name is Sam.' },
        { role: 'assistant', text: 'Hello! How can I help?' },
        { role: 'user', text: 'Sam here: was order A-1001 refunded?' },
        {
          role: 'assistant',
          toolCalls: [
            {
              name: 'lookup_order',
              id: expect.stringMatching(/^call_up\d+x0$/),
              arguments: { orderId: 'A-1001' },
            },
          ],
        },
        {
          role: 'tool',
          tool: 'lookup_order',
          toolCallId: expect.stringMatching(/^call_up\d+x0$/),
          text: '{"orderId":"A-1001","status":"refunded"}',
        },
      ],
      sampling: { temperature: 0 },
    });
  });

  it('keeps personal data as placeholders, in the request, the match keys and the answer', () => {
    const file = readFileSync(cassetteIn(MAIN, 'cassettes.case.ts'), 'utf8');
    expect(file).not.toContain('jane.doe@example.com');
    const note = recorded.fixtures[2];
    expect(note.match.userMessage).toBe('Please email <email-1> the receipt.');
    expect(note.response.content).toBe('You said: Please email <email-1> the receipt.');
  });

  it('keeps the 429 the SDK retried, with its retry-after, and serves repeated requests in order', () => {
    const ordered = read(cassetteIn(MAIN, 'ordered.case.ts')).fixtures;
    expect(
      ordered.map((f: any) => [
        f.metadata.test,
        f.match.sequenceIndex,
        f.response.error?.status ?? f.response.content,
      ]),
    ).toEqual([
      ['retries a rate limit', 0, 429],
      ['retries a rate limit', 1, 'Done after a retry.'],
      ['rolls a die twice', 0, '4'],
      ['rolls a die twice', 1, '2'],
    ]);
    expect(ordered[0].response.error.retryAfter).toBe(0);
  });
});

describe('replay with CI set and no key', () => {
  it('passes and gives the recorded runs: both calls of the retry, the rolls in order, the email put back', () => {
    expect(failures(child.replay)).toBe('');
    expect(Object.values(statusOf(child.replay))).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(sent.replay).toBe(0);
    expect(summaries('replay')).toEqual(summaries('record'));
    expect(summaries('replay')['retries-a-rate-limit.json'].modelCalls).toEqual([
      { error: 429, content: null },
      { content: 'Done after a retry.' },
    ]);
    expect(summaries('replay')['answers-a-note.json'].output).toBe(
      'You said: Please email jane.doe@example.com the receipt.',
    );
  });
});

describe('what changed since the recording, in words', () => {
  const warned = () => text(child.variants);

  it('warns by default, and a renamed tool fails whatever the setting', () => {
    // The replays ran beside the hooked recording: its two calls are all the stand-ins got.
    expect(sent.batch).toBe(2);
    expect(statusOf(child.variants)).toEqual({
      'replays unchanged': 'passed',
      'replays with another model': 'passed',
      'replays with another tool result': 'passed',
      'replays with another earlier message': 'passed',
      'replays with the tool renamed': 'failed',
      'replays a note with another email address': 'passed',
    });
    expect(testMessage(child.variants, 'replays with the tool renamed')).toContain(
      'answered this openai.chat request (POST ' +
        `${upstream.url}/openai/v1/chat/completions) with a call to "lookup_order", but the request offers only "find_order"`,
    );
    expect(testMessage(child.variants, 'replays with the tool renamed')).toContain('[CASSETTE_TOOL_MISSING]');
  });

  it('names a changed model', () => {
    expect(warned()).toContain(`recorded in test "${REFUND}" answered this openai.chat request`);
    expect(warned()).toContain('but the model changed: "gpt-4o-mini" → "gpt-4.1" since it was recorded');
  });

  it('names a changed tool result, field by field', () => {
    expect(warned()).toMatch(
      /but the tool result of lookup_order \(call_up\d+x0\) changed: status "refunded" → "already_refunded" since it was recorded/,
    );
  });

  it('names a changed earlier message', () => {
    expect(warned()).toContain(
      'but the user message (message 1) changed: "My name is Sam." → "My name is Alex." since it was recorded',
    );
  });

  it('does not call a request with other personal data stale: placeholders compare by place', () => {
    // The note's fixture is stale for its age only (see below), not for the other address.
    const note = warned()
      .split('\n')
      .filter((line) => line.includes('stale cassette') && line.includes('$.fixtures[2]'));
    expect(note).toHaveLength(1);
    expect(note[0]).toMatch(
      /but it was recorded \d+ days ago \(2025-01-01T00:00:00.000Z\), longer ago than cassetteMaxAge 90d\./,
    );
  });

  it('fails the changed ones with strictCassettes', () => {
    expect(statusOf(child['variants-strict'])).toEqual({
      'replays unchanged': 'passed',
      'replays with another model': 'failed',
      'replays with another tool result': 'failed',
      'replays with another earlier message': 'failed',
      'replays with the tool renamed': 'failed',
      'replays a note with another email address': 'failed',
    });
    const message = testMessage(child['variants-strict'], 'replays with another tool result');
    expect(message).toContain('[CASSETTE_STALE]');
    expect(message).toMatch(/status "refunded" → "already_refunded"/);
    expect(message).toContain('or turn strictCassettes off to only warn');
  });

  it('says a fixture is older than cassetteMaxAge: warns, and fails with strictCassettes', () => {
    expect(statusOf(child.variants)['replays a note with another email address']).toBe('passed');
    expect(testMessage(child['variants-strict'], 'replays a note with another email address')).toContain(
      'longer ago than cassetteMaxAge 90d',
    );
  });
});

describe('record modes', () => {
  it('record -t re-records only that test and keeps the other fixtures as they were', () => {
    expect(failures(child.partial)).toBe('');
    expect(statusOf(child.partial)).toEqual({ 'checks a refund': 'pending', 'answers a note': 'passed' });
    expect(sent.partial).toBe(1);
    const after = read(cassetteIn(MAIN, 'cassettes.case.ts'));
    expect(groupOf(after.fixtures, REFUND)).toEqual(groupOf(recorded.fixtures, REFUND));
    expect(groupOf(after.fixtures, NOTE).map((f: any) => f.match.userMessage)).toEqual([
      'Please email <email-1> the invoice.',
    ]);
  });

  it('the reporter says what record mode recorded and wrote', () => {
    const summary = stripVTControlCharacters(child.partial.stderr);
    expect(summary).toContain('1 model call recorded (openai 1)');
    expect(summary).toContain('1 cassette updated');
    expect(summary).toContain('cassettes.case.ts.cassette.json: 1 added, 1 removed, 0 unchanged, 2 kept');
    expect(summary).not.toContain('model calls replayed');
  });

  it('record-missing records only what nothing matches, after the rest', () => {
    expect(failures(child.missing)).toBe('');
    expect(sent.missing).toBe(2);
    const after = read(cassetteIn(MAIN, 'cassettes.case.ts'));
    expect(after.fixtures.map((f: any) => f.metadata.test)).toEqual([
      REFUND,
      REFUND,
      NOTE,
      'support agent > checks a second order',
      'support agent > checks a second order',
    ]);
    // Everything replays: the kept refund, the re-recorded note and the added test.
    expect(failures(child['missing-replay'])).toBe('');
    expect(Object.values(statusOf(child['missing-replay']))).toEqual(['passed', 'passed', 'passed']);
    expect(sent['missing-replay']).toBe(0);
  });
});

describe('redaction that is checked', () => {
  it('refuses a redact hook that would stop a fixture from replaying, naming the hook and the field', () => {
    const message = failures(child.hooked);
    expect(message).toContain('[RECORD_REDACT_BREAKS_REPLAY]');
    expect(message).toContain(
      `the redact hook (understudy.model.redact) changed match.userMessage of the fixture recorded for model call #0 (test "${REFUND}")`,
    );
    expect(message).toContain('no fixture would match its request');
    // Nothing written: the cassette is the one recorded before.
    expect(read(cassetteIn(dirOf('hooked'), 'cassettes.case.ts'))).toEqual(recorded);
    expect(existsSync(cassetteIn(dirOf('hooked'), 'cassettes.case.ts'))).toBe(true);
  });
});
