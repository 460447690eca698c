/**
 * Writes a test's trace (OTLP/JSON) and its HTML timeline under
 * `<traceDir>/<test file relative to rootDir>/<test name>.trace.json` (+ `.html`).
 * Each test file owns its folder, so parallel workers never write the same file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { TestEvidence } from '../src/trace/evidence';
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

export interface WrittenTrace {
  trace: string;
  html: string;
}

export class TraceWriter {
  private readonly folder: string;
  private readonly used = new Map<string, number>();
  private cleaned = false;
  readonly written: string[] = [];

  constructor(traceDir: string, rootDir: string, testPath: string) {
    this.folder = traceFolder(traceDir, rootDir, testPath);
  }

  /** Removes the traces an earlier run left for this test file, so the folder tells about this run. */
  clean(): void {
    if (this.cleaned) return;
    this.cleaned = true;
    rmSync(this.folder, { recursive: true, force: true });
  }

  write(test: TestInfo, evidence: TestEvidence): WrittenTrace {
    this.clean();
    const base = fileNameFor(test.name);
    const n = (this.used.get(base) ?? 0) + 1;
    this.used.set(base, n);
    const name = n === 1 ? base : `${base} (${n})`;
    mkdirSync(this.folder, { recursive: true });
    const document: OtlpTrace = testTrace(test, evidence);
    const trace = join(this.folder, `${name}.trace.json`);
    const html = join(this.folder, `${name}.trace.html`);
    writeFileSync(trace, `${JSON.stringify(document, null, 2)}\n`);
    writeFileSync(html, renderTimeline(readTrace(document)));
    this.written.push(trace);
    return { trace, html };
  }
}
