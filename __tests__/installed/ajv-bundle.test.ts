/**
 * ajv runs as the package's one file, dist/ajv.cjs, from V8's code cache (scripts/bundle-ajv.cjs,
 * src/ajv.ts): a world's operation schemas (checked on the host) and a strict tool's parameters
 * (checked in the test file) never load the installed ajv's modules, and give the same results and
 * messages. A preload lists every ajv file each process of the run reads. Under Jest (CommonJS and
 * ESM) and Vitest.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, RUNNERS, runInstalled } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { EACH_RUNNER } from './shared';

const CASE = 'ajv-bundle.case.js';

/** Appends each ajv entry file (installed or bundled) a process reads, once, to AJV_READS_LOG. */
const PRELOAD = `const fs = require('node:fs');
const read = fs.readFileSync;
const seen = new Set();
const AJV = /[\\\\/](ajv[\\\\/]dist[\\\\/](ajv|core|2020)\\.js|jest-understudy[\\\\/]dist[\\\\/]ajv\\.cjs)$/;
fs.readFileSync = function (file, ...rest) {
  if (typeof file === 'string' && AJV.test(file) && !seen.has(file)) {
    seen.add(file);
    fs.appendFileSync(process.env.AJV_READS_LOG, file + '\\n');
  }
  return read.call(this, file, ...rest);
};
`;

const outcomes = (file: ChildFile) =>
  Object.fromEntries(
    file.tests.map((t) => [t.title, [t.status, stripVTControlCharacters(t.failureMessages.join('\n'))]]),
  );
const passed = ['passed', ''];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'understudy-ajv-reads-'));
  writeFileSync(join(dir, 'preload.cjs'), PRELOAD);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(rowsOf(__filename, EACH_RUNNER))('ajv from the package bundle (%s)', (_, runner) => {
  let file: ChildFile;
  let reads: string[];

  beforeAll(async () => {
    const log = join(dir, `${runner}.log`);
    writeFileSync(log, '');
    const run = await runInstalled({
      cases: [CASE],
      ...RUNNERS[runner],
      env: {
        NODE_OPTIONS: `${runner === 'jest-esm' ? '--experimental-vm-modules ' : ''}--require ${join(dir, 'preload.cjs')}`,
        AJV_READS_LOG: log,
      },
    });
    file = fileOf(run, CASE);
    reads = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  }, 240_000);

  it('checks the world operation and the strict tool, and fails the test whose fixture breaks the tool schema', () => {
    expect(outcomes(file)).toEqual({
      "a world operation's input schema takes a good input and refuses a bad one": passed,
      "a strict tool's call fits its parameters schema": passed,
      "a fixture whose call breaks a strict tool's schema fails the test, naming the field": [
        'failed',
        expect.stringMatching(
          /CONTRACT_BREACH[\s\S]*the arguments of lookup_account do not fit its parameters schema \(the tool lookup_account is strict\): \$\.id must be string/,
        ),
      ],
    });
  });

  it("reads the package's ajv file and none of the installed ajv's modules", () => {
    expect(reads.filter((f) => /[\\/]ajv[\\/]dist[\\/]/.test(f))).toEqual([]);
    expect(reads.some((f) => /jest-understudy[\\/]dist[\\/]ajv\.cjs$/.test(f))).toBe(true);
  });
});
