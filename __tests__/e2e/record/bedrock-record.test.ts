/**
 * Bedrock in record mode: Converse and ConverseStream (its binary event stream read back) sent
 * to a fake provider with SigV4-signed requests, recorded, then replayed with the provider
 * stopped, no credentials and CI set. Nothing the signature carries reaches a file.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeUpstream, startFakeUpstream } from '../../support/fake-upstream';
import { type ChildResult, runJest } from './child-jest';

const ACCESS_KEY = 'AKIATESTRECORDING0001';
const SECRET = 'recording-secret-access-key-0123456789abcdef';
const work = mkdtempSync(join(tmpdir(), 'understudy-bedrock-record-'));
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
  upstream = await startFakeUpstream({ bedrock: ACCESS_KEY });
  const understudy = {
    providers: { bedrock: { baseURL: `${upstream.url}/bedrock` } },
    cassetteDir: cassettes,
  };
  const env = (extra: Record<string, string | undefined>) => ({
    CI: undefined,
    AWS_ACCESS_KEY_ID: undefined,
    AWS_SECRET_ACCESS_KEY: undefined,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_REGION: 'eu-west-1',
    UNDERSTUDY_MODE: undefined,
    UPSTREAM_URL: upstream.url,
    RUN_OUT: runs,
    ...extra,
  });
  children.record = await runJest({
    cases: ['bedrock.case.ts'],
    understudy,
    env: env({
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET,
      UNDERSTUDY_MODE: 'record',
      CASE_PHASE: 'record',
    }),
  });
  recordedRequests = upstream.requests.length;
  await upstream.close();
  children.replay = await runJest({
    cases: ['bedrock.case.ts'],
    understudy,
    env: env({ CI: 'true', CASE_PHASE: 'replay' }),
  });
}, 120_000);

afterAll(() => upstream?.close());

describe('Bedrock record and replay', () => {
  it('records Converse and ConverseStream through the AWS SDK', () => {
    expect(failures(children.record)).toBe('');
    expect(recordedRequests).toBe(4);
    const cassette = JSON.parse(
      readFileSync(
        join(cassettes, '__tests__', 'e2e', 'record', 'cases', 'bedrock.case.ts.cassette.json'),
        'utf8',
      ),
    );
    expect(cassette.metadata).toMatchObject({ provider: 'bedrock', protocol: 'bedrock.converse' });
    expect(cassette.fixtures).toHaveLength(4);
    expect(cassette.fixtures[2].response.toolCalls).toEqual([
      { name: 'lookup_order', arguments: { orderId: 'A-1001' }, id: expect.stringMatching(/^tooluse_up/) },
      { name: 'lookup_order', arguments: { orderId: 'B-2002' }, id: expect.stringMatching(/^tooluse_up/) },
    ]);
    const text = readFileSync(
      join(cassettes, '__tests__', 'e2e', 'record', 'cases', 'bedrock.case.ts.cassette.json'),
      'utf8',
    );
    expect(text).not.toContain(ACCESS_KEY);
    expect(text).not.toContain(SECRET);
    expect(text).not.toMatch(/AWS4-HMAC-SHA256|Signature=|x-amz/i);
  });

  it('replays them with the provider stopped, no credentials and CI set, giving the same runs', () => {
    expect(failures(children.replay)).toBe('');
    for (const name of readdirSync(join(runs, 'record')))
      expect([name, JSON.parse(readFileSync(join(runs, 'replay', name), 'utf8'))]).toEqual([
        name,
        JSON.parse(readFileSync(join(runs, 'record', name), 'utf8')),
      ]);
    expect(readdirSync(join(runs, 'replay')).sort()).toEqual(['bedrock-false.json', 'bedrock-true.json']);
  });
});
