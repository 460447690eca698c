/**
 * The per-file context and the session a runner adapter drives (src/run/context.ts,
 * src/sandbox/runtime.ts), made directly in this realm with no bridge and no vm sandbox, as a
 * Vitest adapter would make them: the session reads nothing of a runner; what it knows of the
 * test, the phase and the concurrent test it is told, and its failures come back when drained.
 */
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { resolveOptions } from '../../../../environment/options';
import { script } from '../../../../src/index';
import { FileContext, type RunnerServices } from '../../../../src/run/context';
import { CrashState } from '../../../../src/run/crash';
import { SandboxRuntime } from '../../../../src/sandbox/runtime';

const root = join(__dirname, '..', '..', '..', '..');
const options = (raw: Record<string, unknown> = {}) =>
  resolveOptions(raw, {}, root, join(__dirname, 'context.test.ts'), {});
const CHAT = 'https://api.openai.com/v1/chat/completions';
const ask = (session: SandboxRuntime, text: string) =>
  session.handleFetch(CHAT, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test-key' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: text }] }),
  });

describe('a session a runner adapter drives', () => {
  it('knows the test and the phase only as it is told, and gives its failures back when drained', async () => {
    const session = new SandboxRuntime(options());
    session.context.model.use(script().user('hello').replies('hi'));
    expect(session.context.inTest).toBe(false);
    session.phaseChanged('beforeAll');
    await (await ask(session, 'hello'))?.json();
    session.testStarted('a test');
    expect(session.context.test).toBe('a test');
    session.phaseChanged('test');
    const answer = await (await ask(session, 'hello'))?.json();
    expect(answer.choices[0].message.content).toBe('hi');
    await (await ask(session, 'nobody answers this'))?.json();
    const evidence = session.testEvidence();
    // The call before the test is charged to it, in the phase it was made in.
    expect(evidence.looseCalls.map((c) => c.phase)).toEqual(['beforeAll', 'test', 'test']);
    session.phaseChanged(undefined);
    session.testFinished();
    expect(session.context.inTest).toBe(false);
    const failures = session.drainFailures();
    expect(failures.map((f) => f.code)).toEqual(['MODEL_UNMATCHED']);
    expect(failures[0].message).toContain('nobody answers this');
    expect(session.drainFailures()).toEqual([]);
    expect(await session.fileFinished(1)).toEqual([]);
  });

  it('a test the runner skips leaves no test running', () => {
    const session = new SandboxRuntime(options());
    session.testStarted('a skipped test');
    session.testSkipped();
    expect(session.context.inTest).toBe(false);
    expect(session.context.test).toBeUndefined();
  });

  it("refuses a concurrent test's use through the adapter's concurrentTest, and fails that test", () => {
    const failed: string[] = [];
    let concurrent: ReturnType<NonNullable<RunnerServices['concurrentTest']>>;
    const services: RunnerServices = { concurrentTest: () => concurrent };
    const context = new FileContext(options(), services);
    expect(context.claim(() => 'a model call')).toEqual({ run: undefined });
    concurrent = { name: 'side by side', fail: (f) => failed.push(f.code) };
    const claim = context.claim(() => 'a model call');
    expect(claim.refused?.code).toBe('CONCURRENT_TEST');
    expect(claim.refused?.message).toContain(
      'the concurrent test "side by side" (test.concurrent) made a model call',
    );
    expect(() => context.refuseConcurrent('used the world')).toThrow('used the world');
    expect(failed).toEqual(['CONCURRENT_TEST', 'CONCURRENT_TEST']);
  });

  it("asks the adapter's network policy about a request from outside, and says so without an adapter", () => {
    const asked: string[] = [];
    const context = new FileContext(options(), {
      refusal: (method, url, transport) => {
        asked.push(`${method} ${url} ${transport}`);
        return 'refused by the policy';
      },
    });
    expect(context.refusal('GET', 'https://elsewhere.test/', 'browser')).toBe('refused by the policy');
    expect(asked).toEqual(['GET https://elsewhere.test/ browser']);
    expect(new FileContext(options()).refusal('GET', 'https://elsewhere.test/', 'browser')).toContain(
      "jest-understudy's environment is not active",
    );
  });

  it('lends its world the context itself: the evidence counts the world through it', () => {
    const context = new FileContext(options({ world: join(root, 'fixtures/worlds/records.world.yaml') }));
    expect(context.world.loaded?.name).toBe('records');
    context.testStarted('counting');
    context.world.handle.bind();
    context.world.callToolSync(
      { packageId: 'record-store', operationId: 'records.get', input: { id: 'record-2' } },
      { transport: 'direct' },
    );
    context.testFinished();
    expect(context.evidence.fileStats().operations).toBe(1);
  });
});

describe("the HTTP carrier's crash gate (CrashState.stall)", () => {
  it('answers what the work answers while the run has not crashed', async () => {
    const crash = new CrashState({ atStep: 3 });
    expect(await crash.stall(Promise.resolve('answer'), () => 'stalled')).toBe('answer');
  });

  it('stalls as soon as the run crashes, without waiting for the work, and stalls once', async () => {
    const crash = new CrashState({ atStep: 1 });
    let stalls = 0;
    const gated = crash.stall(new Promise<string>(() => {}), () => `stalled ${++stalls}`);
    crash.modelRequest();
    expect(await gated).toBe('stalled 1');
    expect(await crash.stall(Promise.reject(new Error('dropped')), () => 'stalled again')).toBe(
      'stalled again',
    );
    expect(stalls).toBe(1);
  });
});
