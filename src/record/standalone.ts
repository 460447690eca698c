/**
 * `record({ out, provider })`: the recorder as its own process, for an agent that runs
 * outside Jest (a script, a dev server). Synchronous: it blocks until the recorder ends and
 * throws if the recorder exits with an error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { UnderstudyError } from '../errors';
import { formatOf } from '../fixtures/format';
import { ciRefusal } from './mode';
import type { RecorderOptions } from './recorder-main';

export interface RecordOptions {
  /** Where the fixtures go: `.json`, `.yaml` or `.yml`; a relative path is resolved against `process.cwd()`. */
  out: string;
  /**
   * Where requests go: `'openai'`, `'anthropic'`, `'gemini'` (their public APIs) or a base URL
   * (`'https://my-gateway.example/openai'`, `'http://127.0.0.1:8080'`). Default: the provider
   * whose API the request path belongs to.
   */
  provider?: string;
  /** Port on 127.0.0.1 (default: any free port; the URL is printed). */
  port?: number;
  /** A file the recorder writes its URL to once it listens, for scripts that start the client (it appears whole). */
  urlFile?: string;
  /** Stop after this many model calls. */
  maxCalls?: number;
  /** Stop after this many milliseconds without a request. */
  idleMs?: number;
}

/** The recorder script next to this module (TypeScript in this repository, JavaScript in the package). */
function recorderCommand(): string[] {
  const ext = extname(__filename);
  const script = join(__dirname, `recorder-main${ext}`);
  if (ext !== '.ts') return [script];
  // Running from source (this repository's tests): load the TypeScript through esbuild-register.
  return ['--require', require.resolve('esbuild-register'), script];
}

/**
 * Starts the recorder in a separate process and waits for it: an HTTP proxy on 127.0.0.1
 * that sends each model request to the provider, streams the answer back, and on exit
 * (Ctrl-C, SIGTERM, `POST <url>/__understudy/stop`, `maxCalls`, `idleMs`) writes the calls as
 * fixtures to `out`, keyed and scrubbed like `harness.getRecordedFixtures()`. Local only:
 * refused when `CI` is set.
 *
 * @throws UnderstudyError `RECORD_REFUSED` on CI, `RECORDER_FAILED` when the recorder exits
 * with an error (nothing recorded, an ambiguous recording, a bad `out`).
 */
export function record(options: RecordOptions): void {
  if (typeof options?.out !== 'string' || options.out === '')
    throw new UnderstudyError('BAD_ARGUMENT', 'record({ out }): expected the path of the file to write');
  const refusal = ciRefusal('record', 'record()', process.env);
  if (refusal) throw new UnderstudyError('RECORD_REFUSED', refusal);
  const out = resolve(process.cwd(), options.out);
  const format = formatOf(out);
  if ('issue' in format)
    throw new UnderstudyError('BAD_ARGUMENT', `record({ out }): ${format.issue.message} (${out})`);

  const dir = mkdtempSync(join(tmpdir(), 'understudy-recorder-'));
  const resultFile = join(dir, 'result.json');
  const child: RecorderOptions = { ...options, out, resultFile };
  // Ctrl-C reaches the recorder and this process alike: the recorder writes the file and exits,
  // and this process must live on to report how that went.
  const keepAlive = () => undefined;
  process.on('SIGINT', keepAlive);
  try {
    const run = spawnSync(process.execPath, [...recorderCommand(), JSON.stringify(child)], {
      cwd: process.cwd(),
      env: process.env,
      stdio: 'inherit',
    });
    if (run.error)
      throw new UnderstudyError(
        'RECORDER_FAILED',
        `record(): cannot start the recorder: ${run.error.message}`,
      );
    const result = existsSync(resultFile)
      ? (JSON.parse(readFileSync(resultFile, 'utf8')) as { ok: boolean; message: string })
      : undefined;
    if (run.status !== 0 || !result?.ok) {
      const how = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.status}`;
      throw new UnderstudyError(
        'RECORDER_FAILED',
        `record(): the recorder ${how}: ${result?.message ?? 'no reason given'}`,
      );
    }
  } finally {
    process.off('SIGINT', keepAlive);
    rmSync(dir, { recursive: true, force: true });
  }
}
