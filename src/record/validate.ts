/**
 * What `understudy validate` checks in a cassette beyond the fixture schema: no credential
 * left in it (the pre-commit scan: keys in use, and anything that looks like a secret; fixture
 * files get this scan too, since any of them can answer a model call), and metadata that says
 * what the recording was made against.
 */
import { readFileSync } from 'node:fs';
import type { ErrorCode } from '../errors';
import type { FileIssue } from '../file-format/issue';
import { formatPath, type PathSegment } from '../file-format/json-path';
import { createLocator } from '../file-format/locate';
import { findSecretInUse } from '../files/secrets';
import { formatOf, parseFixtureText } from '../fixtures/format';
import { scrubText } from '../redact';

export type CassetteIssueCode = Extract<ErrorCode, 'CASSETTE_SECRET' | 'CASSETTE_METADATA'>;

/**
 * Credentials in a file that can answer model calls (a cassette or any fixture file): a key in
 * use in any form (as is, escaped, base64 or hex), and anything shaped or named like a credential.
 */
export function secretIssues(path: string, text: string): FileIssue<'CASSETTE_SECRET'>[] {
  const issues: FileIssue<'CASSETTE_SECRET'>[] = [];
  const leaked = findSecretInUse(text);
  if (leaked)
    issues.push({
      code: 'CASSETTE_SECRET',
      file: path,
      path: '$',
      message: `contains ${leaked}`,
      suggestion:
        'record it again (recordings are scrubbed) or replace the key with [REDACTED], then rotate the key',
    });
  text.split('\n').forEach((line, i) => {
    const scrubbed = scrubText(line);
    if (scrubbed === line) return;
    let column = 0;
    while (column < line.length && line[column] === scrubbed[column]) column++;
    issues.push({
      code: 'CASSETTE_SECRET',
      file: path,
      path: '$',
      line: i + 1,
      column: column + 1,
      message:
        'looks like a credential (a key, a token, a password, a signed URL); a committed cassette or fixture file must not hold one',
      suggestion:
        'replace it with [REDACTED], or add a redact hook (understudy.model.redact) and record again',
    });
  });
  return issues;
}

/** Issues of a cassette that already passed the fixture schema (`loadFixtures`). */
export function validateCassetteFile(path: string): FileIssue<CassetteIssueCode>[] {
  const text = readFileSync(path, 'utf8');
  const issues: FileIssue<CassetteIssueCode>[] = secretIssues(path, text);

  const format = formatOf(path);
  if ('issue' in format) return issues;
  const parsed = parseFixtureText(text, format.format, path);
  if (
    'issue' in parsed ||
    typeof parsed.data !== 'object' ||
    parsed.data === null ||
    Array.isArray(parsed.data)
  )
    return issues;
  const data = parsed.data as {
    metadata?: Record<string, unknown>;
    fixtures?: Array<{ metadata?: Record<string, unknown> }>;
  };
  const locate = createLocator(text);
  const at = (segments: PathSegment[], message: string, suggestion?: string) =>
    issues.push({
      code: 'CASSETTE_METADATA',
      file: path,
      path: formatPath(segments),
      ...locate(segments),
      message,
      ...(suggestion ? { suggestion } : {}),
    });

  const meta = data.metadata;
  if (meta && typeof meta.recordedAt === 'string' && Number.isNaN(Date.parse(meta.recordedAt)))
    at(
      ['metadata', 'recordedAt'],
      `is not a date (got ${JSON.stringify(meta.recordedAt)})`,
      'write an ISO 8601 date',
    );
  const hashes = new Set(
    (data.fixtures ?? [])
      .map((f) => f?.metadata?.promptHash)
      .filter((h): h is string => typeof h === 'string'),
  );
  const declared = meta?.promptHash;
  const listed = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : undefined;
  if (listed && hashes.size > 0) {
    const missing = [...hashes].filter((h) => !listed.includes(h));
    if (missing.length > 0)
      at(
        ['metadata', 'promptHash'],
        `does not list the prompt hash${missing.length === 1 ? '' : 'es'} ${missing.join(', ')} its fixtures were recorded against`,
        'the file was edited by hand after recording; record it again',
      );
  }
  return issues;
}
