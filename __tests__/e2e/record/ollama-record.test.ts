/**
 * Ollama's native API in record mode: /api/chat plain and NDJSON-streamed (the stream read back
 * line by line), sent to a fake Ollama server, recorded, then replayed with the server stopped
 * and CI set, giving the same runs.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../../support/fake-upstream';
import { type ChildResult, runJest } from './child-jest';

const work = mkdtempSync(join(tmpdir(), 'understudy-ollama-record-'));
const cassettes = join(work, 'cassettes');
const runs = join(work, 'runs');

let upstream: FakeUpstream;
const children: Record<string, ChildResult> = {};
let recordedRequests = 0;

const failures = (r: ChildResult) =>
  stripVTControlCharacters(
    r.files.flatMap((f) => [f.message, ...f.tests.flatMap((t) => t.failureMessages)]).join('\n'),
  ).trim();

beforeAll(async () => {
  upstream = await startFakeUpstream({});
  // The option names Ollama's /v1 base; its native API is served at the root below it.
  const understudy = {
    providers: { ollama: { baseURL: `${upstream.url}/ollama/v1` } },
    cassetteDir: cassettes,
  };
  const env = (extra: Record<string, string | undefined>) => ({
    CI: undefined,
    UNDERSTUDY_MODE: undefined,
    UPSTREAM_URL: upstream.url,
    RUN_OUT: runs,
    ...extra,
  });
  children.record = await runJest({
    cases: ['ollama.case.ts'],
    understudy,
    env: env({ UNDERSTUDY_MODE: 'record', CASE_PHASE: 'record' }),
  });
  recordedRequests = upstream.requests.length;
  await upstream.close();
  children.replay = await runJest({
    cases: ['ollama.case.ts'],
    understudy,
    env: env({ CI: 'true', CASE_PHASE: 'replay' }),
  });
}, 120_000);

afterAll(() => upstream?.close());

describe('Ollama record and replay', () => {
  it('records /api/chat, plain and streamed, through the ollama client', () => {
    expect(failures(children.record)).toBe('');
    expect(recordedRequests).toBe(4);
    const cassette = JSON.parse(
      readFileSync(
        join(cassettes, '__tests__', 'e2e', 'record', 'cases', 'ollama.case.ts.cassette.json'),
        'utf8',
      ),
    );
    expect(cassette.metadata).toMatchObject({ provider: 'ollama', protocol: 'ollama.chat' });
    expect(cassette.fixtures).toHaveLength(4);
    expect(cassette.fixtures[2].response.toolCalls).toEqual([
      { name: 'lookup_order', arguments: { orderId: 'A-1001' }, id: expect.stringMatching(/^call_up/) },
      { name: 'lookup_order', arguments: { orderId: 'B-2002' }, id: expect.stringMatching(/^call_up/) },
    ]);
    expect(cassette.fixtures[3].response.content).toMatch(/shipped.*packing/);
  });

  it('replays them with the server stopped and CI set, giving the same runs', () => {
    expect(failures(children.replay)).toBe('');
    expect(readdirSync(join(runs, 'replay')).sort()).toEqual(['ollama-false.json', 'ollama-true.json']);
    for (const name of readdirSync(join(runs, 'record')))
      expect([name, JSON.parse(readFileSync(join(runs, 'replay', name), 'utf8'))]).toEqual([
        name,
        JSON.parse(readFileSync(join(runs, 'record', name), 'utf8')),
      ]);
  });
});
