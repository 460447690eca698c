import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { TraceWriter, traceDirProblem } from '../../../../environment/traces';
import { MANIFEST, OwnedFolder } from '../../../../src/files/owned';
import {
  credentialVariables,
  noteSecret,
  SECRETS_REGISTRY,
  secretsInUse,
} from '../../../../src/files/secrets';
import { json, scrubForWriting, writeFile } from '../../../../src/files/write';
import { REDACTED, scrubSecrets, scrubText } from '../../../../src/redact';
import type { TestEvidence } from '../../../../src/trace/evidence';

const temp = () => mkdtempSync(join(tmpdir(), 'understudy-files-'));
const GATEWAY = 'corp-gateway-secret-XYZ987';

afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[SECRETS_REGISTRY];
  delete process.env.WRITES_TEST_API_KEY;
});

describe('scrubbing exact values', () => {
  it('blanks a value of any shape, in the forms JSON, URLs and HTML give it', () => {
    const key = 'gw"key/with+odd&chars<1>';
    const values = [key];
    expect(scrubText(`raw ${key} end`, { values })).toBe(`raw ${REDACTED} end`);
    expect(scrubText(JSON.stringify({ k: key }), { values })).toBe(`{"k":"${REDACTED}"}`);
    expect(scrubText(JSON.stringify(JSON.stringify({ k: key })), { values })).not.toContain('odd');
    expect(scrubText(`?key=${encodeURIComponent(key)}`, { values })).toBe(`?key=${REDACTED}`);
    expect(scrubText('gw&quot;key/with+odd&amp;chars&lt;1&gt;', { values })).toBe(REDACTED);
  });

  it('keeps the character after a credential (closing punctuation stays, the secret goes)', () => {
    expect(scrubText('(Authorization: Bearer sk-live-X) then')).toBe(`(Authorization: ${REDACTED}) then`);
    expect(scrubText('(x-api-key: sk-live-X) then')).toBe(`(x-api-key: ${REDACTED}) then`);
    expect(scrubText('see https://a.example/?key=abc123) now')).toBe(
      `see https://a.example/?key=${REDACTED}) now`,
    );
    expect(scrubText('password=hunter22.')).toBe(`password=${REDACTED}.`);
    expect(scrubText('password=p@ss.w0rd!')).toBe(`password=${REDACTED}!`);
    expect(scrubText('password=p@ss.w0rd and more')).toBe(`password=${REDACTED} and more`);
  });

  it('scrubs object keys too, and blanks a value before any pattern can cut it in half', () => {
    expect(scrubSecrets({ [`by ${GATEWAY}`]: 1 }, { values: [GATEWAY] })).toEqual({ [`by ${REDACTED}`]: 1 });
    const key = 'sk-proj-AbCdEf0123456789AbCdEf0123';
    expect(scrubText(`a ${key}) b`, { values: [key] })).toBe(`a ${REDACTED}) b`);
  });
});

describe('scrubbing any text', () => {
  const fragment = fc.constantFrom(
    'Authorization: Bearer ',
    'x-api-key: ',
    'password=',
    '?key=',
    '&token=',
    'sk-ant-api03-',
    ' ',
    ')',
    '.',
    '"',
    "'",
    '[',
    ']',
    '\n',
    'abc',
    '0123456789',
    REDACTED,
  );
  const texts = fc
    .array(fc.oneof(fragment, fc.string({ maxLength: 6 })), { maxLength: 14 })
    .map((p) => p.join(''));

  it('never leaves a planted value, and scrubbing again changes nothing', () => {
    fc.assert(
      fc.property(texts, texts, (before, after) => {
        const text = `${before}${GATEWAY}${after}`;
        const once = scrubText(text, { values: [GATEWAY] });
        expect(once).not.toContain(GATEWAY);
        expect(scrubText(once, { values: [GATEWAY] })).toBe(once);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the keys in use', () => {
  it('are the credential variables of the environment, without replay placeholders or short values', () => {
    const env = {
      OPENAI_API_KEY: 'sk-understudy-replay',
      ANTHROPIC_API_KEY: GATEWAY,
      AZURE_OPENAI_API_KEY: 'azure-0123456789',
      GITHUB_TOKEN: 'ghp_short_but_long_enough',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMIK7MDENG',
      DB_PASSWORD: 'correct horse',
      MY_SECRET: 'tiny',
      HOME: '/home/someone',
      PATH: '/usr/bin:/bin',
    };
    expect(credentialVariables(env).map((v) => v.name)).toEqual([
      'ANTHROPIC_API_KEY',
      'AZURE_OPENAI_API_KEY',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'DB_PASSWORD',
    ]);
  });

  it('include every credential a request carried, noted in the realm', () => {
    noteSecret('gw-header-only-Q7W8E9R0');
    noteSecret('short');
    expect(secretsInUse([], {})).toEqual(['gw-header-only-Q7W8E9R0']);
  });
});

describe('writeFile', () => {
  it('scrubs the text and the file name, and says where it wrote', () => {
    process.env.WRITES_TEST_API_KEY = GATEWAY;
    const dir = temp();
    const written = writeFile(join(dir, `run ${GATEWAY}.txt`), `key ${GATEWAY}; Bearer abcdefghijkl`);
    expect(written).toBe(join(dir, `run ${REDACTED}.txt`));
    expect(readdirSync(dir)).toEqual([`run ${REDACTED}.txt`]);
    expect(readFileSync(written, 'utf8')).toBe(`key ${REDACTED}; Bearer ${REDACTED}`);
  });

  it('scrubs data string by string before rendering it, so no pattern cuts across its syntax', () => {
    const dir = temp();
    const data = {
      a: '-----BEGIN RSA PRIVATE KEY-----',
      b: 'not a key at all',
      c: '-----END RSA PRIVATE KEY-----',
      headers: { authorization: 'whatever it is' },
    };
    const file = writeFile(join(dir, 'd.json'), json(data), { atomic: true, secrets: ['not a key at all'] });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      a: '-----BEGIN RSA PRIVATE KEY-----',
      b: REDACTED,
      c: '-----END RSA PRIVATE KEY-----',
      headers: { authorization: REDACTED },
    });
    expect(readdirSync(dir)).toEqual(['d.json']);
  });

  it('blanks the keys in use of this realm in text for the terminal too', () => {
    noteSecret('gw-header-only-Q7W8E9R0');
    expect(scrubForWriting('sent gw-header-only-Q7W8E9R0.')).toBe(`sent ${REDACTED}.`);
  });
});

describe('a folder the product owns', () => {
  it('lists what it writes, and clearing removes exactly that', () => {
    const dir = join(temp(), 'traces', 'a.test.js');
    const folder = new OwnedFolder(dir);
    folder.write('one.trace.json', '{}');
    folder.write('one.trace.html', '<p>');
    writeFileSync(join(dir, 'mine.txt'), 'keep');
    expect(JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')).files).toEqual([
      'one.trace.json',
      'one.trace.html',
    ]);
    new OwnedFolder(dir).clear();
    expect(readdirSync(dir)).toEqual(['mine.txt']);
  });

  it('removes itself when nothing else is left, and never clears a folder without its list', () => {
    const root = temp();
    const owned = join(root, 'owned');
    new OwnedFolder(owned).write('x.trace.json', '{}');
    new OwnedFolder(owned).clear();
    expect(existsSync(owned)).toBe(false);
    const foreign = join(root, 'foreign');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'x.trace.json'), '{}');
    new OwnedFolder(foreign).clear();
    expect(readdirSync(foreign)).toEqual(['x.trace.json']);
  });

  it('ignores list entries that point out of the folder', () => {
    const root = temp();
    const dir = join(root, 'owned');
    mkdirSync(dir);
    writeFileSync(join(root, 'precious.txt'), 'keep');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(
      join(dir, MANIFEST),
      JSON.stringify({ writtenBy: 'jest-understudy', files: ['../precious.txt', '/etc/hosts', '..', 'sub'] }),
    );
    new OwnedFolder(dir).clear();
    expect(readFileSync(join(root, 'precious.txt'), 'utf8')).toBe('keep');
    expect(readdirSync(dir)).toEqual(['sub']);
  });

  it('keeps what an earlier writer listed when it writes without clearing first', () => {
    const dir = join(temp(), 'f');
    new OwnedFolder(dir).write('a.json', '{}');
    new OwnedFolder(dir).write('b.json', '{}');
    new OwnedFolder(dir).clear();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('traceDir', () => {
  const root = '/repo';
  const test = '/repo/tests/unit/a.test.ts';
  const problem = (dir: string) => traceDirProblem(dir, root, test);

  it('is refused when it is the rootDir, above it, or among the test files', () => {
    expect(problem('/repo')).toContain(`traceDir is "." (/repo), the project's rootDir.`);
    expect(problem('/')).toContain("a folder above the project's rootDir (/repo)");
    expect(problem('/repo/tests/unit')).toContain('a folder that holds test files (tests/unit/a.test.ts)');
    expect(problem('/repo/tests/.traces')).toContain('inside tests, a folder that holds test files');
    expect(problem('/repo/tests/unit/traces')).toContain('inside tests/unit, a folder that holds test files');
    expect(problem('/repo')).toContain('testEnvironmentOptions.understudy.traceDir');
  });

  it('is accepted in a folder of its own, inside the project or out of it', () => {
    expect(problem('/repo/.understudy/traces')).toBeUndefined();
    expect(problem('/repo/reports/traces')).toBeUndefined();
    expect(problem('/tmp/traces')).toBeUndefined();
    expect(traceDirProblem('/repo/.understudy/traces', root, '/repo/a.test.ts')).toBeUndefined();
  });
});

describe('the trace writer', () => {
  const evidence: TestEvidence = { runs: [], looseCalls: [], timeOrigin: 0 };

  it('scrubs the test name before it becomes a file name, so a long name cannot keep part of a key', () => {
    const dir = temp();
    const key = `gw-${'k'.repeat(40)}`;
    const name = `${'x'.repeat(150)} ${key}`;
    const writer = new TraceWriter(dir, '/repo', '/repo/a.test.ts', () => [key]);
    const written = writer.write({ file: 'a.test.ts', name, status: 'failed', errors: [] }, evidence);
    expect(written.trace).not.toContain('gw-k');
    expect(readFileSync(written.trace, 'utf8')).not.toContain('kkkkkkkk');
  });

  it('cuts a huge test error after scrubbing it', () => {
    const dir = temp();
    const writer = new TraceWriter(dir, '/repo', '/repo/a.test.ts', () => [GATEWAY]);
    const message = `${'m'.repeat(200_000)} ${GATEWAY}`;
    const { trace } = writer.write(
      {
        file: 'a.test.ts',
        name: 't',
        status: 'failed',
        errors: [{ phase: 'test', error: { name: 'Error', message } }],
      },
      evidence,
    );
    const text = readFileSync(trace, 'utf8');
    expect(text.length).toBeLessThan(200_000);
    expect(text).toContain('more characters left out');
    expect(text).not.toContain('corp-gateway');
  });
});
