import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { resolveOptions } from '../../../../environment/options';
import { fileNameFor, traceFolder } from '../../../../environment/traces';
import { toJsonl } from '../../../../src/golden/export';
import { goldenSchema } from '../../../../src/golden/golden.schema';
import { loadGoldenFile, readGoldenFile } from '../../../../src/golden/load';
import { REDACTED, scrubSecrets, scrubText } from '../../../../src/redact';
import { formatSummary, summarize } from '../../../../src/reporter';
import type { TestEvidence } from '../../../../src/trace/evidence';
import { renderTimeline } from '../../../../src/trace/html';
import { testTrace } from '../../../../src/trace/otlp';
import { plainError } from '../../../../src/trace/plain';
import { readTrace, TraceFormatError } from '../../../../src/trace/read';
import { renderTree } from '../../../../src/trace/tree';

describe('scrubbing secrets', () => {
  it.each([
    ['OpenAI key', 'key sk-proj-AbCdEf0123456789AbCdEf0123 end', 'key [REDACTED] end'],
    ['Anthropic key', 'sk-ant-api03-AbCdEf0123456789-xyz', '[REDACTED]'],
    ['Google key', 'AIzaSyA1234567890abcdefghijklmnopqrstuv', '[REDACTED]'],
    ['bearer token', 'Authorization: Bearer abc.def.ghi-123', 'Authorization: [REDACTED]'],
    ['x-api-key header', '"x-api-key": "my-secret-value"', '"x-api-key": "[REDACTED]"'],
    ['AWS access key id', 'AKIAIOSFODNN7EXAMPLE', '[REDACTED]'],
    [
      'AWS secret key',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'aws_secret_access_key = [REDACTED]',
    ],
    ['GitHub token', 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB', '[REDACTED]'],
    ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop', '[REDACTED]'],
    [
      'JWT',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      '[REDACTED]',
    ],
    [
      'key in a URL',
      'https://generativelanguage.googleapis.com/v1/models?key=abc123&alt=sse',
      'https://generativelanguage.googleapis.com/v1/models?key=[REDACTED]&alt=sse',
    ],
    ['password in a URL', 'postgres://app:hunter22@db:5432/x', 'postgres://app:[REDACTED]@db:5432/x'],
  ])('%s', (_, text, scrubbed) => {
    expect(scrubText(text)).toBe(scrubbed);
  });

  it('leaves ordinary text, token counts and ids alone', () => {
    const text = 'max_tokens 512, order A-1001, call_abc123, the sky is blue';
    expect(scrubText(text)).toBe(text);
    expect(scrubSecrets({ usage: { inputTokens: 3, max_tokens: 10 }, id: 'toolu_01' })).toEqual({
      usage: { inputTokens: 3, max_tokens: 10 },
      id: 'toolu_01',
    });
  });

  it('walks data deeply: credential keys are blanked whatever their value, strings are scrubbed', () => {
    const cyclic: Record<string, unknown> = {
      headers: { Authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 42 },
    };
    cyclic.self = cyclic;
    const out = scrubSecrets({
      a: [cyclic, 'sk-ant-abcdefghijklmnop'],
      password: { nested: true },
      m: new Map([['token', 'x']]),
    }) as any;
    expect(out.a[0].headers).toEqual({ Authorization: REDACTED, 'x-api-key': REDACTED });
    expect(out.a[0].self).toBe(out.a[0]);
    expect(out.a[1]).toBe(REDACTED);
    expect(out.password).toBe(REDACTED);
    expect(out.m.get('token')).toBe(REDACTED);
  });

  it('takes more patterns and keys', () => {
    expect(scrubText('customer 4111-1111', { patterns: [/\d{4}-\d{4}/] })).toBe(`customer ${REDACTED}`);
    expect(scrubSecrets({ ssn: '123' }, { keys: ['SSN'] })).toEqual({ ssn: REDACTED });
  });
});

describe('trace file names', () => {
  it('keep the test name readable, without path separators or reserved characters', () => {
    expect(fileNameFor('refunds > damaged > checks: a/b "c" <d>')).toBe(
      'refunds › damaged › checks_ a_b _c_ _d_',
    );
    expect(fileNameFor('..')).toBe('test');
    const long = fileNameFor('x'.repeat(400));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(160);
    expect(long).toMatch(/~[0-9a-f]{8}$/);
  });

  it('put each test file in a folder of its own under traceDir', () => {
    expect(traceFolder('/t', '/repo', '/repo/src/a.test.ts')).toBe('/t/src/a.test.ts');
    expect(traceFolder('/t', '/repo', '/elsewhere/a.test.ts')).toBe(
      '/t/_outside_rootDir/elsewhere/a.test.ts',
    );
  });
});

describe('the traces option', () => {
  const resolve = (raw: unknown, env: NodeJS.ProcessEnv = {}) =>
    resolveOptions(raw, {}, '/repo', '/repo/a.test.ts', env);
  it('defaults to on-failure, takes always/off, and UNDERSTUDY_TRACES', () => {
    expect(resolve({}).traces).toBe('on-failure');
    expect(resolve({ traces: 'always' }).traces).toBe('always');
    expect(resolve({ traces: 'always' }, { UNDERSTUDY_TRACES: 'off' }).traces).toBe('off');
    expect(resolve({}).traceDir).toBe('/repo/.understudy/traces');
  });
  it('rejects anything else, naming the option', () => {
    expect(() => resolve({ traces: true })).toThrow(
      'testEnvironmentOptions.understudy.traces: must be one of "on-failure", "always", "off" (got true)',
    );
    expect(() => resolve({}, { UNDERSTUDY_TRACES: 'sometimes' })).toThrow('UNDERSTUDY_TRACES must be one of');
  });
});

describe('the reporter summary', () => {
  const report = (over: object = {}) => ({
    agentRuns: 2,
    replayed: { openai: 3 },
    operations: 1,
    unmatched: 0,
    staleCassettes: [],
    traces: [],
    ...over,
  });
  it('adds up the files and lists providers, stale cassettes and traces', () => {
    const s = summarize([
      { understudy: report() },
      {
        understudy: report({
          replayed: { anthropic: 2, openai: 1 },
          unmatched: 1,
          staleCassettes: ['/r/a.cassette.json'],
          traces: ['/r/t/x.trace.json'],
        }),
      },
      {},
    ]);
    expect(formatSummary(s, { cwd: '/r' })).toBe(
      [
        'jest-understudy',
        '  4 agent runs',
        '  6 model calls replayed (anthropic 2, openai 4)',
        '  2 tool operations',
        '  1 unmatched request',
        '  1 stale cassette',
        '  1 trace written',
        '    stale: a.cassette.json',
        '    t/x.trace.json',
      ].join('\n'),
    );
  });
  it('in record mode, says what was recorded and written instead of what was replayed', () => {
    const cassette = (
      path: string,
      state: string,
      added: number,
      removed: number,
      unchanged: number,
      kept: number,
    ) => ({
      path,
      state,
      added,
      removed,
      unchanged,
      kept,
    });
    const s = summarize([
      {
        understudy: report({
          replayed: {},
          recorded: { openai: 3 },
          cassettes: [cassette('/r/a.cassette.json', 'updated', 1, 2, 1, 4)],
        }),
      },
      {
        understudy: report({
          replayed: {},
          recorded: { anthropic: 2 },
          cassettes: [cassette('/r/b.cassette.json', 'new', 2, 0, 0, 0)],
        }),
      },
    ]);
    expect(formatSummary(s, { cwd: '/r' })).toBe(
      [
        'jest-understudy',
        '  4 agent runs',
        '  5 model calls recorded (anthropic 2, openai 3)',
        '  1 cassette written, 1 cassette updated',
        '    a.cassette.json: 1 added, 2 removed, 1 unchanged, 4 kept',
        '    b.cassette.json: 2 added, 0 removed, 0 unchanged',
        '  2 tool operations',
        '  0 unmatched requests',
        '  0 stale cassettes',
        '  0 traces written',
      ].join('\n'),
    );
  });
  it('says nothing for a suite that used none of it', () => {
    expect(
      formatSummary(summarize([{ understudy: report({ agentRuns: 0, replayed: {}, operations: 0 }) }])),
    ).toBe('');
  });
});

describe('golden task files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-golden-'));
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('match the published schema', () => {
    const published = JSON.parse(
      readFileSync(join(__dirname, '..', '..', '..', '..', 'schemas', 'golden.schema.json'), 'utf8'),
    );
    expect(published).toEqual(JSON.parse(JSON.stringify(goldenSchema)));
  });

  it('report every problem with file, line and JSON path, and suggest fixes (a misspelt name once, not also as missing)', () => {
    const file = write(
      'bad.golden.yaml',
      [
        'tasks:',
        '  - id: a',
        '    input: hi',
        '    finalMessage: done',
        '  - id: a',
        '    prompt: hello',
        '    expect:',
        '      trajectory: { steps: [lookup], mode: sorted }',
        '    negative:',
        '      forbiddenOrders: [[only_one]]',
        '    fixtures:',
        '      - match: {}',
        '        response: { text: hi }',
        '',
      ].join('\n'),
    );
    const result = readGoldenFile(file);
    expect('issues' in result).toBe(true);
    const issues = (
      result as { issues: Array<{ path: string; line?: number; message: string; suggestion?: string }> }
    ).issues;
    const shown = issues.map(
      (i) => `${i.line}:${i.path}: ${i.message}${i.suggestion ? ` — ${i.suggestion}` : ''}`,
    );
    expect(shown).toEqual([
      '4:$.tasks[0].finalMessage: unknown property "finalMessage" — "finalMessage" belongs inside "expect"',
      '6:$.tasks[1].prompt: unknown property "prompt" — did you mean "input"?',
      '8:$.tasks[1].expect.trajectory.mode: must be one of "exact", "ordered", "unordered", "contains", "within", "subset", "superset" (got the string "sorted")',
      '10:$.tasks[1].negative.forbiddenOrders[0]: must be a non-empty list of a tool name or { name, args? } (got a list)',
    ]);
  });

  it('check inline fixtures as fixtures, and task ids for duplicates', () => {
    const file = write(
      'fixtures.golden.yaml',
      [
        'tasks:',
        '  - id: a',
        '    input: hi',
        '    fixtures:',
        '      - match: {}',
        '        response: { text: hi }',
        '  - id: a',
        '    input: again',
        '',
      ].join('\n'),
    );
    expect(() => loadGoldenFile(file)).toThrow(
      new RegExp(
        [
          `Golden task file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 2 problems`,
          `  ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6:\\d+ at \\$\\.tasks\\[0\\]\\.fixtures\\[0\\]\\.response\\.text: unknown property "text" — did you mean "content"\\?`,
        ].join('\\n'),
      ),
    );
    expect(() => loadGoldenFile(file)).toThrow('duplicate task id "a" (also tasks[0])');
  });

  it('export as JSONL, one self-contained task per line', () => {
    const file = write(
      'ok.golden.json',
      JSON.stringify({
        tasks: [
          {
            id: 'one',
            input: { question: 'refund A-1' },
            tags: ['refunds'],
            expect: {
              trajectory: ['lookup', { name: 'refund', args: { id: 'A-1' } }],
              terminalState: 'succeeded',
            },
            negative: { neverCalls: ['delete'], forbiddenOrders: [['refund', 'lookup']] },
          },
          { id: 'two', input: 'hi', expect: { finalMessage: { regex: '^hi', flags: 'i' } } },
        ],
      }),
    );
    const lines = toJsonl([loadGoldenFile(file)], dir)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        id: 'one',
        file: 'ok.golden.json',
        tags: ['refunds'],
        input: { question: 'refund A-1' },
        expected: {
          trajectory: {
            steps: [{ name: 'lookup' }, { name: 'refund', args: { id: 'A-1' } }],
            mode: 'exact',
            args: 'subset',
          },
          terminalState: 'succeeded',
        },
        negative: {
          neverCalls: [{ name: 'delete' }],
          forbiddenOrders: [[{ name: 'refund' }, { name: 'lookup' }]],
        },
      },
      {
        id: 'two',
        file: 'ok.golden.json',
        input: 'hi',
        expected: { finalMessage: { regex: '^hi', flags: 'i' } },
        negative: { neverCalls: [], forbiddenOrders: [] },
      },
    ]);
  });
});

describe('reading traces back', () => {
  const evidence: TestEvidence = {
    timeOrigin: 1_767_225_600_000,
    looseCalls: [],
    runs: [
      {
        index: 0,
        kind: 'drill',
        phase: 'test',
        incomplete: false,
        terminalState: 'failed',
        startedAt: 10,
        durationMs: 5,
        modelCalls: [],
        toolCalls: [
          {
            id: 'c1',
            name: 'save',
            arguments: { id: 1 },
            modelCallIndex: 0,
            fileModelCallIndex: 0,
            answered: true,
            result: { ok: 1 },
          },
        ],
        operations: [
          {
            seq: 1,
            packageId: 'store',
            operationId: 'records.save',
            input: { id: 1 },
            outcome: { kind: 'error', error: { code: 'DENIED' } },
            override: { id: 'deny', scope: 'drill', outcome: 'error', matchCount: 1 },
            toolCallId: 'c1',
          },
        ],
        drill: { name: 'save-record', build: { format: 'b@1', seed: 7 }, seed: 7 },
      },
    ],
  };
  const doc = testTrace({ file: 'a.test.ts', name: 'saves', status: 'failed', errors: [] }, evidence);

  it('rebuild the span tree, with the drill build and seed on the run', () => {
    const tree = readTrace(JSON.stringify(doc));
    const run = tree.roots[0].children[0];
    expect(run.attributes).toMatchObject({
      'understudy.drill.name': 'save-record',
      'understudy.drill.seed': '7',
      'understudy.drill.build': '{"format":"b@1","seed":7}',
      'understudy.run.kind': 'drill',
    });
    expect(run.children[0].children[0].attributes['understudy.override.id']).toBe('deny');
    expect(renderTree(tree)).toContain('operation store/records.save #1 {"id":1}  error [override deny]');
    expect(renderTimeline(tree)).toContain('Drill save-record: build and seed');
  });

  it("show the agent's error and its top frames under a run that threw (understudy report)", () => {
    const thrown = new TypeError("Cannot read properties of undefined (reading 'orders')");
    const crashed: TestEvidence = {
      ...evidence,
      runs: [
        {
          ...evidence.runs[0],
          kind: 'run',
          terminalState: 'errored',
          error: plainError(thrown),
          drill: undefined,
        },
      ],
    };
    const tree = readTrace(
      JSON.stringify(
        testTrace({ file: 'a.test.ts', name: 'crashes', status: 'failed', errors: [] }, crashed),
      ),
    );
    const text = renderTree(tree);
    expect(text).toMatch(/run 0 \[run, test\] errored/);
    expect(text).toContain(
      "│  agent error: TypeError: Cannot read properties of undefined (reading 'orders')",
    );
    const frames = text.split('\n').filter((line) => /^\s+│?\s+at /.test(line));
    expect(frames).toHaveLength(3);
    expect(
      renderTree(tree, { full: true })
        .split('\n')
        .filter((line) => /^\s+│?\s+at /.test(line)).length,
    ).toBeGreaterThan(3);
  });

  it('refuse what is not OTLP/JSON', () => {
    expect(() => readTrace('{"spans": []}')).toThrow(TraceFormatError);
    expect(() => readTrace('nope')).toThrow('not JSON');
  });
});
