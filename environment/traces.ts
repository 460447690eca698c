/**
 * Writes a test's trace (OTLP/JSON) and its HTML timeline under
 * `<traceDir>/<test file relative to rootDir>/<test name>.trace.json` (+ `.html`).
 * Each test file owns its folder, so parallel workers never write the same file; a new
 * run removes only the traces an earlier run listed in that folder.
 */
import { createHash } from 'node:crypto';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { OwnedFolder } from '../src/files/owned';
import { json, scrubDataForWriting } from '../src/files/write';
import { cutText, TRACE_LIMITS } from '../src/trace/budget';
import type { PlainError, TestEvidence } from '../src/trace/evidence';
import { renderTimeline } from '../src/trace/html';
import { type OtlpTrace, type TestInfo, testTrace } from '../src/trace/otlp';
import { readTrace } from '../src/trace/read';

/** The test file's folder under traceDir. */
export function traceFolder(traceDir: string, rootDir: string, testPath: string): string {
  let rel = relative(rootDir, testPath);
  // A test outside rootDir still gets a folder of its own inside traceDir.
  if (rel === '' || isAbsolute(rel) || rel.startsWith('..'))
    rel = join(
      '_outside_rootDir',
      rel
        .split(sep)
        .filter((p) => p !== '..' && p !== '')
        .join(sep)
        .replace(/:/g, ''),
    );
  return join(traceDir, rel);
}

const inside = (folder: string, path: string) => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Why `traceDir` cannot hold traces, or undefined when it can. Traces go in a folder of
 * their own: not the project's rootDir or a folder above it, and not inside a folder
 * that holds test files, where a folder per test file would sit among the user's own.
 */
export function traceDirProblem(traceDir: string, rootDir: string, testPath: string): string | undefined {
  const option = 'testEnvironmentOptions.understudy.traceDir';
  const shown = relative(rootDir, traceDir) || '.';
  let why: string | undefined;
  if (inside(traceDir, rootDir))
    why =
      relative(traceDir, rootDir) === ''
        ? "the project's rootDir"
        : `a folder above the project's rootDir (${rootDir})`;
  else if (inside(traceDir, testPath))
    why = `a folder that holds test files (${relative(rootDir, testPath)})`;
  else
    for (
      let folder = dirname(testPath);
      inside(rootDir, folder) && folder !== rootDir;
      folder = dirname(folder)
    )
      if (inside(folder, traceDir)) {
        why = `inside ${relative(rootDir, folder)}, a folder that holds test files (${relative(rootDir, testPath)})`;
        break;
      }
  if (!why) return undefined;
  return (
    `jest-understudy: ${option} is ${JSON.stringify(shown)} (${traceDir}), ${why}. Traces need a folder ` +
    'of their own: each test file gets a folder there that every run clears. Use a folder like ' +
    '".understudy/traces" (the default) or one outside your sources.'
  );
}

const MAX_NAME_BYTES = 160;

/** A file name for a test name: no path separators or reserved characters, bounded length. */
export function fileNameFor(testName: string): string {
  let name = testName
    .replace(/ > /g, ' › ')
    .replace(/\p{Cc}/gu, ' ')
    .replace(/[/\\:*?"<>|]/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+|[.\s]+$/g, '');
  if (name === '') name = 'test';
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    const hash = createHash('sha1').update(testName).digest('hex').slice(0, 8);
    while (Buffer.byteLength(name) > MAX_NAME_BYTES - 10) name = name.slice(0, -1);
    name = `${name.trimEnd()}~${hash}`;
  }
  return name;
}

/** A test's error as a trace keeps it: a matcher's message over a long run can be megabytes. */
function errorWithin(error: PlainError): PlainError {
  const max = TRACE_LIMITS.maxPayloadBytes;
  const same = (text: string) => text;
  return {
    ...error,
    message: cutText(error.message, max, same),
    ...(error.stack !== undefined && { stack: cutText(error.stack, max, same) }),
  };
}

export interface WrittenTrace {
  trace: string;
  html: string;
}

export class TraceWriter {
  private readonly folder: OwnedFolder;
  private readonly used = new Map<string, number>();
  private cleaned = false;
  readonly written: string[] = [];

  /** `secrets`: credentials the test file's realm knows of (its env, the requests it saw). */
  constructor(
    traceDir: string,
    rootDir: string,
    testPath: string,
    private readonly secrets: () => Iterable<string> = () => [],
  ) {
    this.folder = new OwnedFolder(traceFolder(traceDir, rootDir, testPath));
  }

  /** Removes the traces an earlier run wrote for this test file, so the folder tells about this run. */
  clean(): void {
    if (this.cleaned) return;
    this.cleaned = true;
    this.folder.clear();
  }

  write(test: TestInfo, evidence: TestEvidence): WrittenTrace {
    this.clean();
    const secrets = [...this.secrets()];
    // Scrubbed before anything is shortened (the test name into a file name, long messages),
    // so no cut leaves part of a key behind.
    const clean = scrubDataForWriting({ test, evidence }, secrets);
    clean.test.errors = clean.test.errors.map((e) => ({ ...e, error: errorWithin(e.error) }));
    const base = fileNameFor(clean.test.name);
    const n = (this.used.get(base) ?? 0) + 1;
    this.used.set(base, n);
    const name = n === 1 ? base : `${base} (${n})`;
    const document: OtlpTrace = testTrace(clean.test, clean.evidence);
    const trace = this.folder.write(`${name}.trace.json`, json(document), { secrets });
    const html = this.folder.write(`${name}.trace.html`, renderTimeline(readTrace(document)), { secrets });
    this.written.push(trace);
    return { trace, html };
  }
}
