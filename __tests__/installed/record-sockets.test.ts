/**
 * Recording socket sessions from the installed package, under Jest (CommonJS and ESM) and Vitest:
 * an OpenAI Realtime tool loop (the Agents SDK's RealtimeSession, the key in a header or a subprotocol) and a Gemini Live function call
 * round trip (`ai.live.connect`) run in record mode against aimock, a stand-in provider on
 * loopback (and again in live mode, which writes nothing); the cassette holds both turns of each,
 * scrubbed of the keys; the replay answers them
 * with aimock stopped, no key and CI set, in process and over the served port. An agent that takes
 * another path, or a changed prompt under strict cassettes, fails the replay as it does over HTTP.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fileOf, type InstalledRun, RUNNERS, runInstalled, statuses } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

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

describe.each(runnersOf(__filename))('recording socket sessions (%s)', (runner) => {
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

// ── Spoken turns ─────────────────────────────────────────────────────────────────────────────
// The user speaks (microphone audio, not text): the recording sends the audio upstream and keeps
// the provider's input transcription as the user's turn. aimock does not transcribe, so the
// stand-in here is a loopback `ws` server speaking both wires, whose transcript is made from the
// audio it got (100 ms of tone is one unit of the number said): text made up without forwarding
// the audio would not name 7.

const SPOKEN = ['record-sockets-spoken-realtime.case.js', 'record-sockets-spoken-live.case.js'];
const SPOKEN_VAD =
  'a spoken Realtime turn ended by server VAD (no transcription asked for): the order is looked up and answered';
const SPOKEN_COMMIT =
  'a spoken Realtime turn the client commits, with its own transcription: heard, looked up and answered';
const DEAF = 'record-sockets-spoken-deaf.case.js';
const SPOKEN_DEAF =
  'must fail: the provider sends no transcript of the spoken turn, so it cannot be recorded';
const SPOKEN_LIVE =
  'a spoken Live turn (automatic activity detection, audioStreamEnd): heard, the function called and answered';
const SPOKEN_LIVE_MANUAL =
  'a spoken Live turn under manual activity detection, no transcription asked for: the function called and answered';
const { pcm, spokenMs } = require('./cases/record-sockets-spoken-audio.cjs') as {
  pcm(ms: number, rate: number, tone?: boolean): Buffer;
  spokenMs(audio: Buffer, rate: number): number;
};

/** What the stand-in saw of one client socket: its URL, the client events' types, session settings and the audio of each turn. */
interface Heard {
  url: string;
  wire: 'realtime' | 'live';
  settings: any[];
  audio: Buffer[];
}

/** A provider on loopback that hears audio: OpenAI Realtime on `/v1/realtime`, Gemini Live elsewhere. */
async function transcribingStandIn(seen: Heard[]) {
  const { WebSocketServer } = require('ws') as typeof import('ws');
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (ws, req) => {
    const url = req.url ?? '';
    const heard: Heard = {
      url,
      wire: url.includes('/realtime') ? 'realtime' : 'live',
      settings: [],
      audio: [],
    };
    seen.push(heard);
    let next = 0;
    const id = (prefix: string) => `${prefix}_${++next}`;
    const send = (message: object) => ws.send(JSON.stringify(message));
    let buffer: Buffer[] = [];
    if (heard.wire === 'realtime') {
      const deaf = url.includes('-deaf');
      let session: any = {};
      const said: number[] = [];
      let answered: number | undefined;
      send({ type: 'session.created', session: { type: 'realtime', object: 'realtime.session' } });
      ws.on('message', (data) => {
        const e = JSON.parse(String(data));
        if (e.type === 'session.update') {
          heard.settings.push(e.session);
          session = { ...session, ...e.session, audio: { ...session.audio, ...e.session.audio } };
          send({ type: 'session.updated', session });
        } else if (e.type === 'input_audio_buffer.append') buffer.push(Buffer.from(e.audio, 'base64'));
        else if (e.type === 'input_audio_buffer.commit') {
          const audio = Buffer.concat(buffer);
          buffer = [];
          heard.audio.push(audio);
          const item_id = id('item');
          const n = Math.round(spokenMs(audio, 24000) / 100);
          said.push(n);
          send({ type: 'input_audio_buffer.committed', item_id, previous_item_id: null });
          if (!session.audio?.input?.transcription) return;
          if (deaf)
            send({
              type: 'conversation.item.input_audio_transcription.failed',
              item_id,
              content_index: 0,
              error: { type: 'transcription_error', code: 'audio_unintelligible', message: 'no speech' },
            });
          else
            send({
              type: 'conversation.item.input_audio_transcription.completed',
              item_id,
              content_index: 0,
              transcript: `Where is order ${n}?`,
            });
        } else if (e.type === 'conversation.item.create') {
          if (e.item.type === 'function_call_output') answered = JSON.parse(e.item.output).id;
        } else if (e.type === 'response.create') {
          const rid = id('resp');
          const item =
            answered === undefined
              ? {
                  id: id('item'),
                  type: 'function_call',
                  call_id: id('call'),
                  name: 'lookup_order',
                  arguments: JSON.stringify({ id: said.at(-1) }),
                }
              : {
                  id: id('item'),
                  type: 'message',
                  role: 'assistant',
                  status: 'completed',
                  content: [{ type: 'output_text', text: `Order ${answered} has shipped.` }],
                };
          answered = undefined;
          send({ type: 'response.created', response: { id: rid, status: 'in_progress', output: [] } });
          send({
            type: 'response.done',
            response: {
              id: rid,
              status: 'completed',
              output: [item],
              usage: { input_tokens: 12, output_tokens: 6, total_tokens: 18 },
            },
          });
        }
      });
      return;
    }
    let setup: any = {};
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.setup) {
        setup = m.setup;
        heard.settings.push(m.setup);
        send({ setupComplete: {} });
      }
      const input = m.realtimeInput ?? {};
      if (input.audio) buffer.push(Buffer.from(input.audio.data, 'base64'));
      if (input.audioStreamEnd || input.activityEnd) {
        const audio = Buffer.concat(buffer);
        buffer = [];
        heard.audio.push(audio);
        const n = Math.round(spokenMs(audio, 16000) / 100);
        if (setup.inputAudioTranscription)
          send({ serverContent: { inputTranscription: { text: `Weather for zone ${n}, please.` } } });
        send({ toolCall: { functionCalls: [{ id: id('fc'), name: 'get_weather', args: { zone: n } }] } });
      }
      for (const r of m.toolResponse?.functionResponses ?? []) {
        send({ serverContent: { modelTurn: { parts: [{ text: `Zone ${r.response.zone} is sunny.` }] } } });
        send({
          serverContent: { turnComplete: true },
          usageMetadata: { promptTokenCount: 9, responseTokenCount: 4 },
        });
      }
    });
  });
  const { port } = server.address() as import('node:net').AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((resolve) => server.close(resolve)) };
}

describe.each(runnersOf(__filename))('recording spoken socket turns (%s)', (runner) => {
  const openaiKey = `sk-proj-spk${randomBytes(16).toString('hex')}`;
  const geminiKey = `AIzaSy${randomBytes(16).toString('hex').slice(0, 33)}`;
  const seen: Heard[] = [];
  let record: InstalledRun;
  let replay: InstalledRun;
  let changed: InstalledRun;
  let otherAudio: InstalledRun;
  let cassettes: Record<string, { raw: string; json: any }>;

  beforeAll(async () => {
    const standIn = await transcribingStandIn(seen);
    const understudy = {
      providers: { openai: { baseURL: `${standIn.url}/v1` }, gemini: { baseURL: standIn.url } },
      cassetteDir: 'cassettes',
    };
    const env = { CI: undefined, REC_OPENAI_BASE_URL: `${standIn.url}/v1`, REC_GEMINI_BASE_URL: standIn.url };
    const project = { cases: SPOKEN, understudy, ...RUNNERS[runner] };
    try {
      record = await runInstalled({
        ...project,
        cases: [...SPOKEN, DEAF],
        env: { ...env, UNDERSTUDY_MODE: 'record', OPENAI_API_KEY: openaiKey, GEMINI_API_KEY: geminiKey },
      });
    } finally {
      await standIn.stop();
    }
    cassettes = {};
    for (const name of SPOKEN) {
      const raw = cassetteText(record.project, name);
      cassettes[name] = { raw, json: JSON.parse(raw) };
    }
    const replayEnv = { ...env, CI: 'true' };
    const again = { ...project, project: record.project };
    replay = await runInstalled({ ...again, env: replayEnv });
    otherAudio = await runInstalled({ ...again, env: { ...replayEnv, REC_SPOKEN_MS: '800' } });
    // Each cassette's first turn heard as something else.
    const { writeFileSync } = require('node:fs') as typeof import('node:fs');
    for (const name of SPOKEN) {
      const json = structuredClone(cassettes[name].json);
      if (!json.fixtures?.[0]) continue;
      json.fixtures[0].match.userMessage = json.fixtures[0].match.userMessage.replace('7', '9');
      writeFileSync(
        join(record.project, 'cassettes', `${name}.cassette.json`),
        JSON.stringify(json, null, 2),
      );
    }
    changed = await runInstalled({ ...again, env: replayEnv });
  }, 360_000);

  it('records the spoken turns from the provider; one it cannot transcribe fails, naming what to turn on', () => {
    expect(statuses(fileOf(record, SPOKEN[0]))).toEqual({
      [SPOKEN_VAD]: 'passed',
      [SPOKEN_COMMIT]: 'passed',
    });
    expect(statuses(fileOf(record, DEAF))).toEqual({ [SPOKEN_DEAF]: 'failed' });
    expect(statuses(fileOf(record, SPOKEN[1]))).toEqual({
      [SPOKEN_LIVE]: 'passed',
      [SPOKEN_LIVE_MANUAL]: 'passed',
    });
    const deaf = failureOf(record, DEAF, SPOKEN_DEAF);
    expect(deaf).toContain('RECORD_TRANSCRIPT_MISSING');
    expect(deaf).toContain('session.audio.input.transcription');
  });

  it('sends the audio the client spoke to the provider, byte for byte, asking for its transcription', () => {
    const audioSettings = (s: Heard) => s.settings.find((x) => x.audio)?.audio.input;
    const realtime = seen.filter((s) => s.wire === 'realtime');
    const live = seen.filter((s) => s.wire === 'live');
    expect(realtime).toHaveLength(3);
    expect(live).toHaveLength(2);
    // The files run side by side: each socket is told by what it asked for.
    const asked = (s: Heard) => audioSettings(s)?.transcription?.model;
    const vad = realtime.find(
      (s) => !s.url.includes('-deaf') && asked(s) === 'gpt-4o-mini-transcribe',
    ) as Heard;
    const commit = realtime.find((s) => asked(s) === 'gpt-4o-transcribe') as Heard;
    expect([vad, commit].every(Boolean)).toBe(true);
    // Committed by the client: exactly its 700 ms of speech. Ended by VAD: the speech, then the silence that ended it.
    const tone = pcm(700, 24000);
    expect(vad.audio).toHaveLength(1);
    expect(vad.audio[0].subarray(0, tone.length).equals(tone)).toBe(true);
    expect(spokenMs(vad.audio[0], 24000)).toBeLessThanOrEqual(700);
    expect(vad.audio[0].length).toBeGreaterThan(tone.length);
    expect(commit.audio).toEqual([tone]);
    for (const s of live) expect(s.audio).toEqual([pcm(700, 16000)]);
    // Transcription: the client's own setting mirrored, else asked for; the relay ends the turn itself.
    expect(audioSettings(vad)).toMatchObject({
      transcription: { model: 'gpt-4o-mini-transcribe' },
      turn_detection: null,
    });
    expect(audioSettings(commit)).toMatchObject({
      transcription: { model: 'gpt-4o-transcribe' },
      turn_detection: null,
    });
    for (const s of live) expect(s.settings[0].inputAudioTranscription).toEqual({});
    expect(live[1].settings[0].realtimeInputConfig).toEqual({
      automaticActivityDetection: { disabled: true },
    });
  });

  it("keeps each spoken turn as the provider's transcript of it, and no key", () => {
    const turns = (name: string) =>
      cassettes[name].json.fixtures.map((f: any) => [f.match.userMessage, f.match.turnIndex]);
    // The turns that answer the spoken one are bound to its audio: replay hears that audio only as these words.
    const heardFrom = (name: string) => cassettes[name].json.fixtures.map((f: any) => f.metadata.heard);
    const digest = (audio: Buffer) => `sha256:${createHash('sha256').update(audio).digest('hex')}`;
    const vadAudio = Buffer.concat([pcm(700, 24000), pcm(500, 24000, false)]);
    const [vad, commit] = [digest(vadAudio), digest(pcm(700, 24000))];
    expect(heardFrom(SPOKEN[0])).toEqual([vad, vad, commit, commit]);
    const live = digest(pcm(700, 16000));
    expect(heardFrom(SPOKEN[1])).toEqual([live, live, live, live]);
    expect(turns(SPOKEN[0])).toEqual([
      ['Where is order 7?', 0],
      ['Where is order 7?', 1],
      ['Where is order 7?', 0],
      ['Where is order 7?', 1],
    ]);
    expect(turns(SPOKEN[1])).toEqual([
      ['Weather for zone 7, please.', 0],
      ['Weather for zone 7, please.', 1],
      ['Weather for zone 7, please.', 0],
      ['Weather for zone 7, please.', 1],
    ]);
    for (const { raw } of Object.values(cassettes)) {
      expect(raw).not.toContain(openaiKey);
      expect(raw).not.toContain(geminiKey);
      expect(raw).not.toContain(openaiKey.slice(12));
      expect(raw).not.toContain(geminiKey.slice(8));
    }
  });

  it('replays the spoken sessions with the provider gone and no key', () => {
    const realtime = statuses(fileOf(replay, SPOKEN[0]));
    expect([realtime[SPOKEN_VAD], realtime[SPOKEN_COMMIT]]).toEqual(['passed', 'passed']);
    expect(statuses(fileOf(replay, SPOKEN[1]))).toEqual({
      [SPOKEN_LIVE]: 'passed',
      [SPOKEN_LIVE_MANUAL]: 'passed',
    });
  });

  it('must fail: other audio at the recorded turn is no turn the recording covers: unmatched', () => {
    for (const name of SPOKEN)
      for (const test of fileOf(otherAudio, name).tests) {
        expect(test.status).toBe('failed');
        expect(stripVTControlCharacters(test.failureMessages.join('\n'))).toMatch(
          /no fixture|unmatched|UNMATCHED/i,
        );
      }
  });

  it('must fail: a cassette that hears the spoken turn as something else is an unmatched turn', () => {
    for (const [name, title, said] of [
      [SPOKEN[0], SPOKEN_VAD, 'Where is order 9?'],
      [SPOKEN[1], SPOKEN_LIVE, 'Weather for zone 9, please.'],
    ]) {
      const message = failureOf(changed, name, title);
      expect(message).toMatch(/no fixture|unmatched|UNMATCHED/i);
      expect(message).toContain(said);
    }
  });
});
