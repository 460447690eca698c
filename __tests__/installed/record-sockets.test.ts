/**
 * Recording socket sessions from the installed package, under Jest (CommonJS and ESM) and Vitest:
 * an OpenAI Realtime tool loop (the Agents SDK's RealtimeSession, the key in a header or a subprotocol) and a Gemini Live function call
 * round trip (`ai.live.connect`) run in record mode against aimock, a stand-in provider on
 * loopback (and again in live mode, which writes nothing); the cassette holds both turns of each,
 * scrubbed of the keys; the replay answers them
 * with aimock stopped, no key and CI set, in process and over the served port. An agent that takes
 * another path, or a changed prompt under strict cassettes, fails the replay as it does over HTTP.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  fileOf,
  type InstalledRun,
  RUNNERS,
  type Runner,
  runInstalled,
  statuses,
} from '../support/installed';

// aimock is an ES module package with a CommonJS build: loaded as the driver needs it.
const { LLMock } = require('@copilotkit/aimock') as typeof import('@copilotkit/aimock');

const CASES = ['record-sockets-realtime.case.js', 'record-sockets-live.case.js'];
const REALTIME =
  'a Realtime tool loop (key in a header): the model looks the order up, then answers from the result';
const REALTIME_WS =
  "a Realtime tool loop (Node's global WebSocket, key in a subprotocol): the same, recorded and replayed";
const LIVE = 'a Live function call round trip: the model asks for the weather, then answers from it';
const REALTIME_SERVED =
  'a Realtime tool loop recorded in process, replayed over the served port (an agent in another process)';
const LIVE_SERVED =
  'a Live function call round trip recorded in process, replayed over the served port (an agent in another process)';
const PASSED = {
  [CASES[0]]: { [REALTIME]: 'passed', [REALTIME_WS]: 'passed', [REALTIME_SERVED]: 'passed' },
  [CASES[1]]: { [LIVE]: 'passed', [LIVE_SERVED]: 'passed' },
};

function standIn(): InstanceType<typeof LLMock> {
  const mock = new LLMock({ port: 0, logLevel: 'silent' } as never);
  mock.addFixtures([
    {
      match: { userMessage: 'Where is order 7?', hasToolResult: false },
      response: { toolCalls: [{ name: 'lookup_order', arguments: '{"id":7}' }] },
    },
    // The tool's output must reach the provider for it to answer.
    {
      match: { userMessage: 'Where is order 7?', toolResultContains: 'shipped' },
      response: { content: 'Order 7 has shipped.' },
    },
    {
      match: { userMessage: 'What is the weather in Paris?', hasToolResult: false },
      response: { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    },
    {
      match: { userMessage: 'What is the weather in Paris?', toolResultContains: 'sunny' },
      response: { content: 'It is 18 degrees and sunny in Paris.' },
    },
  ] as never);
  return mock;
}

/** A case's cassette as written (`{}` when there is none). */
function cassetteText(project: string, name: string): string {
  const file = join(project, 'cassettes', `${name}.cassette.json`);
  return existsSync(file) ? readFileSync(file, 'utf8') : '{}';
}

/** Every test of the cases, by file. */
const everyTest = Object.entries(PASSED).flatMap(([name, tests]) =>
  Object.keys(tests).map((title) => [name, title]),
);

const failureOf = (run: InstalledRun, name: string, title: string): string => {
  const test = fileOf(run, name).tests.find((t) => t.title === title);
  if (!test) throw new Error(`no test "${title}" in ${name}`);
  expect(test.status).toBe('failed');
  return stripVTControlCharacters(test.failureMessages.join('\n'));
};

describe.each(Object.keys(RUNNERS) as Runner[])('recording socket sessions (%s)', (runner) => {
  const openaiKey = `sk-proj-rec${randomBytes(16).toString('hex')}`;
  const geminiKey = `AIzaSy${randomBytes(16).toString('hex').slice(0, 33)}`;
  let aimock: InstanceType<typeof LLMock>;
  let record: InstalledRun;
  let replay: InstalledRun;
  let otherPath: InstalledRun;
  let otherPrompt: InstalledRun;
  let live: InstalledRun;
  let liveWroteNothing = false;
  /** Provider sockets the recording opened. */
  let recorded = 0;
  /** The upgrades the stand-in saw: URL and headers, as the provider gets them. */
  const upgrades: string[] = [];
  let cassettes: Record<string, { raw: string; json: any }>;

  beforeAll(async () => {
    aimock = standIn();
    const url = await aimock.start();
    const server = (aimock as unknown as { serverInstance: { server: import('node:http').Server } })
      .serverInstance.server;
    server.prependListener('upgrade', (req) => upgrades.push(JSON.stringify([req.url, req.headers])));
    const understudy = {
      providers: { openai: { baseURL: `${url}/v1` }, gemini: { baseURL: url } },
      cassetteDir: 'cassettes',
    };
    const env = { CI: undefined, REC_OPENAI_BASE_URL: `${url}/v1`, REC_GEMINI_BASE_URL: url };
    const project = { cases: CASES, understudy, ...RUNNERS[runner] };
    const keys = { OPENAI_API_KEY: openaiKey, GEMINI_API_KEY: geminiKey };
    record = await runInstalled({ ...project, env: { ...env, UNDERSTUDY_MODE: 'record', ...keys } });
    recorded = upgrades.length;
    const before = CASES.map((name) => cassetteText(record.project, name));
    live = await runInstalled({
      ...project,
      project: record.project,
      env: { ...env, UNDERSTUDY_MODE: 'live', ...keys },
    });
    liveWroteNothing = CASES.every((name, i) => cassetteText(record.project, name) === before[i]);
    await aimock.stop();
    cassettes = {};
    for (const name of CASES) {
      const raw = cassetteText(record.project, name);
      cassettes[name] = { raw, json: JSON.parse(raw) };
    }
    // The replays: no key, no provider, CI set.
    const replayEnv = { ...env, CI: 'true', REC_REPLAY_SERVED: '1' };
    replay = await runInstalled({ ...project, project: record.project, env: replayEnv });
    otherPath = await runInstalled({
      ...project,
      project: record.project,
      env: { ...replayEnv, REC_QUESTION: 'Where is order 8?' },
    });
    otherPrompt = await runInstalled({
      ...project,
      project: record.project,
      env: { ...replayEnv, REC_INSTRUCTIONS: 'Answer in French.', UNDERSTUDY_STRICT_CASSETTES: '1' },
    });
  }, 360_000);

  afterAll(() => aimock?.stop().catch(() => {}));

  it('records both sessions from the provider, with the client key sent upstream', () => {
    for (const name of CASES) expect(statuses(fileOf(record, name))).toEqual(PASSED[name]);
    // One provider socket per client socket, opened with the client's key (header, subprotocol, query).
    const opened = (credential: string) =>
      upgrades.slice(0, recorded).filter((u) => u.includes(credential)).length;
    expect(recorded).toBe(5);
    expect(opened(`Bearer ${openaiKey}`)).toBe(2);
    expect(opened(`openai-insecure-api-key.${openaiKey}`)).toBe(1);
    expect(opened(`?key=${geminiKey}`)).toBe(2);
  });

  it('live mode sends the same sessions to the provider, and writes nothing', () => {
    for (const name of CASES) expect(statuses(fileOf(live, name))).toEqual(PASSED[name]);
    expect(upgrades.length - recorded).toBe(5);
    expect(liveWroteNothing).toBe(true);
  });

  it('writes each turn in the HTTP fixture format, keyed and with its request', () => {
    const realtime = cassettes[CASES[0]].json;
    expect(realtime.metadata).toMatchObject({ provider: 'openai', protocol: 'openai.realtime' });
    // Each test's two turns, in its own group: the call, then the answer from its result.
    const turns = (test: string) =>
      realtime.fixtures
        .filter((f: any) => f.metadata.test === test)
        .map((f: any) => [f.match, f.response.toolCalls?.[0]?.name ?? f.response.content]);
    for (const test of [REALTIME, REALTIME_WS, REALTIME_SERVED])
      expect(turns(test)).toEqual([
        [{ userMessage: 'Where is order 7?', turnIndex: 0, hasToolResult: false }, 'lookup_order'],
        [{ userMessage: 'Where is order 7?', turnIndex: 1, hasToolResult: true }, 'Order 7 has shipped.'],
      ]);
    expect(realtime.fixtures[1].metadata.request).toMatchObject({
      system: 'You look orders up before you answer.',
      tools: ['lookup_order'],
    });
    const live = cassettes[CASES[1]].json;
    expect(live.metadata).toMatchObject({ provider: 'gemini', protocol: 'gemini.live' });
    for (const test of [LIVE, LIVE_SERVED])
      expect(
        live.fixtures
          .filter((f: any) => f.metadata.test === test)
          .map((f: any) => [f.match.turnIndex, f.response.toolCalls?.[0]?.name ?? f.response.content]),
      ).toEqual([
        [0, 'get_weather'],
        [1, 'It is 18 degrees and sunny in Paris.'],
      ]);
  });

  it('keeps no key in the cassettes', () => {
    for (const { raw, json } of Object.values(cassettes)) {
      expect(json.fixtures?.length).toBeGreaterThan(0);
      expect(raw).not.toContain(openaiKey);
      expect(raw).not.toContain(geminiKey);
      expect(raw).not.toContain(openaiKey.slice(12));
      expect(raw).not.toContain(geminiKey.slice(8));
    }
  });

  it('replays both sessions with the provider gone and no key', () => {
    for (const name of CASES) expect(statuses(fileOf(replay, name))).toEqual(PASSED[name]);
  });

  it('must fail: an agent that takes another path meets no recorded turn', () => {
    // The recorded path replays (above); this one asks what was never recorded.
    expect(statuses(fileOf(replay, CASES[1]))).toEqual(PASSED[CASES[1]]);
    for (const [name, title] of everyTest) {
      const message = failureOf(otherPath, name, title);
      expect(message).toMatch(/no fixture|unmatched|UNMATCHED/i);
      expect(message).toContain('Where is order 8?');
    }
  });

  it('must fail: a changed prompt makes the recorded turns stale, as over HTTP', () => {
    for (const [name, title] of everyTest) {
      const message = failureOf(otherPrompt, name, title);
      expect(message).toContain('stale cassette');
      expect(message).toContain('the system prompt changed');
      expect(message).toContain('Answer in French.');
    }
  });
});
