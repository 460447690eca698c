/**
 * Replay gives back what was recorded, from the installed package under Jest (CommonJS and ESM)
 * and Vitest: each protocol's official SDK
 * runs a tool loop against a stand-in provider whose answers carry what real ones do (see
 * ../support/realistic-upstream.ts), plain and streamed, in record mode; then the provider is
 * gone and the same loops replay the cassette at once, on CI with strict cassettes, in process
 * and over the served port. What the SDK returned for every call, and the run's evidence, must
 * be the same field by field, and the cassette recorded a moment ago must not be stale.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, RUNNERS, runInstalled } from '../support/installed';
import { type RealisticUpstream, startRealisticUpstream } from '../support/realistic-upstream';
import { runnersOf } from '../support/runner-tier';

const KEYS = {
  OPENAI_API_KEY: 'sk-proj-RECORDINGfidelity0123456789abcdefXYZ',
  ANTHROPIC_API_KEY: 'sk-ant-api03-RECORDINGfidelity0123456789abcdef',
  GEMINI_API_KEY: 'AIzaSyRECORDINGfidelity0123456789abcdefgh',
  AWS_ACCESS_KEY_ID: 'AKIARECORDINGFIDELITY',
  AWS_SECRET_ACCESS_KEY: 'recordingFidelitySecret0123456789abcdefghij',
};

const failures = (file: ChildFile) =>
  stripVTControlCharacters([file.message, ...file.tests.flatMap((t) => t.failureMessages)].join('\n'));

/** Each protocol plain and streamed, in process and (Bedrock is not served there) over the served port. */
const NAMES = ['chat', 'responses', 'anthropic', 'gemini', 'bedrock'].flatMap((p) =>
  ['plain', 'streamed'].flatMap((s) => [`${p}-${s}`, ...(p === 'bedrock' ? [] : [`${p}-${s}-served`])]),
);

describe.each(runnersOf(__filename))(
  'record against a stand-in provider, then replay at once (%s)',
  (runner) => {
    const out = mkdtempSync(join(tmpdir(), 'understudy-fidelity-'));
    let upstream: RealisticUpstream;
    let recorded: ChildFile;
    let replayed: ChildFile;
    let cassette: { fixtures: Array<Record<string, any>> };
    let requestsRecorded = 0;

    const read = (phase: string, name: string) =>
      JSON.parse(readFileSync(join(out, phase, `${name}.json`), 'utf8'));

    beforeAll(async () => {
      upstream = await startRealisticUpstream();
      const understudy = {
        providers: {
          openai: { baseURL: `${upstream.url}/openai/v1` },
          anthropic: { baseURL: `${upstream.url}/anthropic` },
          gemini: { baseURL: `${upstream.url}/gemini` },
          bedrock: { baseURL: `${upstream.url}/bedrock` },
        },
      };
      const env = { UPSTREAM_URL: upstream.url, RUN_OUT: out, CI: undefined, AWS_REGION: 'us-east-1' };
      const record = await runInstalled({
        ...RUNNERS[runner],
        cases: ['fidelity-replay.case.js'],
        understudy,
        env: { ...env, ...KEYS, UNDERSTUDY_MODE: 'record', PHASE: 'record' },
      });
      recorded = fileOf(record, 'fidelity-replay.case.js');
      requestsRecorded = upstream.requests.length;
      await upstream.close();
      const path = join(record.project, '__cassettes__', 'fidelity-replay.case.js.cassette.json');
      if (existsSync(path)) cassette = JSON.parse(readFileSync(path, 'utf8'));
      const replay = await runInstalled({
        ...RUNNERS[runner],
        project: record.project,
        cases: ['fidelity-replay.case.js'],
        understudy: { ...understudy, strictCassettes: true },
        env: { ...env, CI: 'true', PHASE: 'replay' },
      });
      replayed = fileOf(replay, 'fidelity-replay.case.js');
    }, 240_000);

    afterAll(() => upstream?.close());

    it('records every loop from the provider, and writes the cassette', () => {
      expect(failures(recorded)).toBe('');
      expect(recorded.tests.map((t) => t.status)).toEqual(Array(NAMES.length).fill('passed'));
      expect(requestsRecorded).toBe(2 * NAMES.length);
      expect(readdirSync(join(out, 'record')).sort()).toEqual(NAMES.map((n) => `${n}.json`).sort());
      expect(cassette.fixtures).toHaveLength(2 * NAMES.length);
    });

    it('replays on CI with strict cassettes: nothing stale, no request refused', () => {
      expect(failures(replayed)).toBe('');
      expect(replayed.tests.map((t) => t.status)).toEqual(Array(NAMES.length).fill('passed'));
    });

    it.each(NAMES)(
      '%s: the SDK returns on replay what it returned while recording, field by field',
      (name) => {
        const whileRecording = read('record', name);
        const onReplay = read('replay', name);
        // Two calls each (the tool call, then the answer from its result), as the provider answered them.
        expect(whileRecording.returned).toHaveLength(2);
        expect(onReplay).toEqual(whileRecording);
      },
    );

    it('keeps what the provider sent that the mock would otherwise make up', () => {
      const anthropic = read('replay', 'anthropic-plain').returned;
      expect(anthropic[0].usage).toMatchObject({ input_tokens: 21, cache_creation_input_tokens: 1536 });
      expect(anthropic[0].content[0].signature).toMatch(/^EqQBCkgIARAB/);
      const gemini = read('replay', 'gemini-streamed').returned;
      expect(gemini[0].parts[0]).toEqual({
        functionCall: { name: 'get_weather', args: { city: 'Paris' } },
        thoughtSignature: expect.stringMatching(/^CiQB0e2Kb/),
      });
      // A thinking Gemini signs its answer too: on the text part, streamed on a last part of its own.
      expect(read('replay', 'gemini-plain').returned[1].candidates[0].content.parts).toEqual([
        { text: 'It is 18 C in Paris.', thoughtSignature: expect.stringMatching(/^CiQB0e2Kb/) },
      ]);
      expect(gemini[1].parts.at(-1)).toEqual({
        text: '',
        thoughtSignature: expect.stringMatching(/^CiQB0e2Kb/),
      });
      // A reasoning summary in parts, streamed part by part.
      expect(read('replay', 'responses-streamed').returned[1].output[0].summary).toHaveLength(2);
      const responses = read('replay', 'responses-plain').returned;
      expect(responses[0].output[0]).toEqual({
        id: expect.stringMatching(/^rs_0b8f/),
        type: 'reasoning',
        summary: [],
        encrypted_content: expect.stringMatching(/^gAAAAABo8xTq/),
      });
    });
  },
);
