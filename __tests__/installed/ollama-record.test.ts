/**
 * Recording Ollama's native API from the installed package, under Jest (CommonJS and ESM) and
 * Vitest: record mode starts with no provider key (a local Ollama takes none) when
 * providers.ollama is on, records the NDJSON stream into the cassette, and the replay answers from
 * it with the server stopped and CI set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { fileOf, type InstalledRun, RUNNERS, runInstalled, statuses } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

const TITLE = 'looks an order up and answers, over a recorded NDJSON stream';

describe.each(runnersOf(__filename))('recording Ollama (%s)', (runner) => {
  let upstream: FakeUpstream;
  let record: InstalledRun;
  let replay: InstalledRun;
  let served = 0;

  beforeAll(async () => {
    upstream = await startFakeUpstream({});
    const understudy = {
      providers: { ollama: { baseURL: `${upstream.url}/ollama/v1` } },
      cassetteDir: 'cassettes',
    };
    const env = { CI: undefined, OLLAMA_UPSTREAM: upstream.url };
    record = await runInstalled({
      cases: ['ollama-record.case.js'],
      understudy,
      ...RUNNERS[runner],
      env: { ...env, UNDERSTUDY_MODE: 'record' },
    });
    served = upstream.requests.length;
    await upstream.close();
    replay = await runInstalled({
      cases: ['ollama-record.case.js'],
      understudy,
      ...RUNNERS[runner],
      project: record.project,
      env: { ...env, CI: 'true' },
    });
  }, 180_000);

  afterAll(() => upstream?.close());

  it('records the loop with no key, and replays it from the cassette', () => {
    expect([
      statuses(fileOf(record, 'ollama-record.case.js')),
      record.stderr.includes('RECORD_KEY_MISSING'),
    ]).toEqual([{ [TITLE]: 'passed' }, false]);
    expect(served).toBe(2);
    const cassette = JSON.parse(
      readFileSync(join(record.project, 'cassettes', 'ollama-record.case.js.cassette.json'), 'utf8'),
    );
    expect(cassette.metadata).toMatchObject({ provider: 'ollama', protocol: 'ollama.chat' });
    expect(
      cassette.fixtures.map((f: { response: { content?: string } }) => f.response.content ?? null),
    ).toEqual([null, 'Here is the status: {"status":"shipped"}.']);
    expect(statuses(fileOf(replay, 'ollama-record.case.js'))).toEqual({ [TITLE]: 'passed' });
  });
});
