/**
 * The recording hands each job to its own part, and replay builds no forwarder: in replay mode
 * the forwarding module is never loaded, however the file's fixtures answer; the first call that
 * goes to the provider loads it and builds one forwarder, which later calls reuse.
 */
import { describe, expect, it } from '@jest/globals';
import type { Conversation } from '../../../../src/conversation';
import type { Fixture } from '../../../../src/fixtures/types';
import type { ModelCall } from '../../../../src/model/call';
import type { ProviderCodec } from '../../../../src/providers/codec';
import { Recording, type RecordingDeps } from '../../../../src/record/recording';

// Counted on globalThis: the factory runs when the module is first required, which may be
// before this file's own variables exist (were it imported eagerly).
type Counts = { loads: number; built: number };
const counted = (): Counts => (globalThis as { forwarding?: Counts }).forwarding ?? { loads: 0, built: 0 };

// The global `jest` (not the @jest/globals import): @swc/jest hoists jest.mock calls on it.
jest.mock('../../../../src/record/forwarder', () => {
  const shared = globalThis as { forwarding?: { loads: number; built: number } };
  shared.forwarding = shared.forwarding ?? { loads: 0, built: 0 };
  const counts = shared.forwarding;
  counts.loads++;
  const actual = jest.requireActual<typeof import('../../../../src/record/forwarder')>(
    '../../../../src/record/forwarder',
  );
  class Counted extends actual.Forwarder {
    constructor(...args: ConstructorParameters<typeof actual.Forwarder>) {
      super(...args);
      counts.built++;
    }
  }
  return { ...actual, Forwarder: Counted };
});

function depsIn(mode: 'replay' | 'live'): RecordingDeps & { failures: string[] } {
  const failures: string[] = [];
  return {
    failures,
    model: {
      viewRequests: () => {},
      register: () => {},
      normalizeText: (t: string) => t,
      keysOf: () => ({}),
    } as unknown as RecordingDeps['model'],
    options: {
      mode,
      cassette: '/nonexistent/cassette.json',
      fixtures: [],
      pii: [],
      strictCassettes: false,
      strictTurnIndex: false,
      startedAt: Date.now(),
      testPath: 'a.test.ts',
    } as unknown as RecordingDeps['options'],
    threads: {} as RecordingDeps['threads'],
    runs: { getStore: () => undefined },
    fail: (code) => {
      failures.push(code);
    },
    services: {},
  };
}

const conversation = {
  protocol: 'openai-chat',
  model: 'gpt-4o',
  stream: false,
  tools: [],
  messages: [{ role: 'user', text: 'hi' }],
} as unknown as Conversation;

describe('the recording', () => {
  it('in replay mode loads and builds no forwarder, through a whole file', async () => {
    const recording = new Recording(depsIn('replay'));
    recording.testStarted('answers');
    const fixture = { id: 'hello', reply: { content: 'hi' } } as unknown as Fixture;
    const answer = { entry: { fixture }, keys: {} as never, kind: 'reply' as const };
    recording.replayed(answer, conversation, {}, () => 'this request');
    expect(recording.modeFor(undefined)).toBe('replay');
    expect(recording.recordedOf({} as ModelCall)).toBeUndefined();
    recording.testFinished();
    expect(await recording.fileFinished(0)).toEqual([]);
    expect(recording.stats()).toEqual({ recorded: {}, cassettes: [] });
    expect(counted()).toEqual({ loads: 0, built: 0 });
  });

  it('builds one forwarder on the first call that goes to the provider, and reuses it', async () => {
    const deps = depsIn('live');
    const recording = new Recording(deps);
    expect(counted()).toEqual({ loads: 0, built: 0 });
    const codec = {
      provider: 'openai',
      protocol: 'openai-chat',
      encodeError: () => ({ status: 401, headers: {}, body: '{}' }),
    } as unknown as ProviderCodec;
    const forward = () =>
      recording.forward({
        codec,
        conversation,
        request: {},
        url: 'https://api.openai.com/v1/chat/completions',
        startedAt: 0,
        signal: undefined,
        wire: { method: 'POST', headers: () => new Headers(), body: '{}' },
        index: 0,
        register: () => {},
      });
    const first = await forward();
    await forward();
    // Without a key, live mode refuses to send: the forwarder answered, as the provider would.
    expect(first !== 'drop' && first.status).toBe(401);
    expect(deps.failures).toEqual(['RECORD_KEY_MISSING', 'RECORD_KEY_MISSING']);
    expect(counted()).toEqual({ loads: 1, built: 1 });
  });
});
