/**
 * V8's code cache for the package's bundles, kept between processes: written once after a file
 * ran, read by the next compile of the same source on the same Node, refused when it does not
 * fit, never read from a folder others may write to, off under NODE_DISABLE_COMPILE_CACHE.
 * Each compile runs in a worker thread of its own: V8 keeps compiled scripts per isolate, so a
 * second compile in one isolate would never read the cache.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { beforeEach, describe, expect, it } from '@jest/globals';

const SOURCE =
  '(function () { const parts = []; for (let i = 0; i < 50; i++) parts.push(i * 2); return parts.join(","); })';
const MODULE = join(__dirname, '..', '..', '..', 'environment', 'code-cache.ts');

interface Compiled {
  rejected: boolean | undefined;
  out: string;
}

/**
 * Compiles and runs `source` as `file` in an isolate of its own, then keeps its code. A source
 * in parts passes its bytes (Uint8Arrays, as a worker receives them) as the file's Buffers.
 */
function compileApart(
  file: string,
  source: string | Array<string | Uint8Array>,
  { disabled = false } = {},
): Promise<Compiled> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    if (workerData.disabled) process.env.NODE_DISABLE_COMPILE_CACHE = '1';
    const { compileCached, keepCompiledCode } = require(workerData.module);
    const source = typeof workerData.source === 'string'
      ? workerData.source
      : workerData.source.map((part) => (typeof part === 'string' ? part : Buffer.from(part)));
    const compiled = compileCached(workerData.file, source, workerData.under);
    const out = compiled.script.runInThisContext()();
    keepCompiledCode();
    parentPort.postMessage({ rejected: compiled.script.cachedDataRejected, out });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, {
      eval: true,
      execArgv: ['--require', require.resolve('esbuild-register')],
      workerData: { module: MODULE, file, source, under: temp, disabled },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

let temp: string;
const folder = () => join(temp, 'jest-understudy-code-cache');
const caches = () => readdirSync(folder()).filter((f) => f.endsWith('.bin'));

beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'understudy-code-cache-'));
});

describe('compileCached', () => {
  it('writes the cache after a run, and the next compile of the same source uses it and writes nothing', async () => {
    const first = await compileApart('/pkg/dist/bundle.cjs', SOURCE);
    expect(first).toEqual({ rejected: undefined, out: expect.stringMatching(/^0,2,4/) });
    const written = caches();
    expect(written).toHaveLength(1);
    expect(statSync(join(folder(), written[0])).mode & 0o777).toBe(0o600);
    const mtime = statSync(join(folder(), written[0])).mtimeMs;

    const second = await compileApart('/pkg/dist/bundle.cjs', SOURCE);
    expect(second).toEqual({ rejected: false, out: first.out });
    expect(caches()).toEqual(written);
    expect(statSync(join(folder(), written[0])).mtimeMs).toBe(mtime);
  }, 30_000);

  it('keys the cache by the source: a rebuilt file gets a new cache, which replaces the old one', async () => {
    await compileApart('/pkg/dist/bundle.cjs', SOURCE);
    const [before] = caches();
    const rebuilt = await compileApart('/pkg/dist/bundle.cjs', SOURCE.replace('i * 2', 'i * 3'));
    expect(rebuilt).toEqual({ rejected: undefined, out: expect.stringMatching(/^0,3,6/) });
    expect(caches()).toHaveLength(1);
    expect(caches()[0]).not.toBe(before);
    // Another file's cache is its own.
    await compileApart('/other/dist/bundle.cjs', SOURCE);
    expect(caches()).toHaveLength(2);
  }, 30_000);

  it("compiles a source given in parts, a file's bytes among them, and keys its cache by those bytes", async () => {
    const [head, body] = [SOURCE.slice(0, 14), SOURCE.slice(14)];
    const parts = (text: string) => [head, Buffer.from(text), ''];
    const first = await compileApart('/pkg/dist/bundle.cjs', parts(body));
    expect(first).toEqual({ rejected: undefined, out: expect.stringMatching(/^0,2,4/) });
    const [written] = caches();
    expect(await compileApart('/pkg/dist/bundle.cjs', parts(body))).toEqual({
      rejected: false,
      out: first.out,
    });
    // The same length, one byte changed: V8 alone would take the old cache for it.
    const changed = body.replace('i * 2', 'i * 3');
    expect(changed).toHaveLength(body.length);
    expect(await compileApart('/pkg/dist/bundle.cjs', parts(changed))).toEqual({
      rejected: undefined,
      out: expect.stringMatching(/^0,3,6/),
    });
    expect(caches()).toHaveLength(1);
    expect(caches()[0]).not.toBe(written);
  }, 30_000);

  it('compiles afresh from a damaged cache, and writes a good one', async () => {
    await compileApart('/pkg/dist/bundle.cjs', SOURCE);
    const file = join(folder(), caches()[0]);
    writeFileSync(file, Buffer.from('not a code cache'));
    expect(await compileApart('/pkg/dist/bundle.cjs', SOURCE)).toEqual({
      rejected: true,
      out: expect.stringMatching(/^0,2,4/),
    });
    expect(readFileSync(file).toString()).not.toBe('not a code cache');
    expect((await compileApart('/pkg/dist/bundle.cjs', SOURCE)).rejected).toBe(false);
  }, 30_000);

  it('neither reads nor writes a folder others may write to', async () => {
    await compileApart('/pkg/dist/bundle.cjs', SOURCE);
    chmodSync(folder(), 0o777);
    expect((await compileApart('/pkg/dist/bundle.cjs', SOURCE)).rejected).toBeUndefined();
    await compileApart('/pkg/dist/another.cjs', SOURCE);
    expect(caches()).toHaveLength(1);
  }, 30_000);

  it('is off under NODE_DISABLE_COMPILE_CACHE', async () => {
    const compiled = await compileApart('/pkg/dist/bundle.cjs', SOURCE, { disabled: true });
    expect(compiled.out).toMatch(/^0,2,4/);
    expect(() => readdirSync(folder())).toThrow();
  }, 30_000);
});
