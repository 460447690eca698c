/**
 * The world's one door for a tool call (WorldHost.callTool, callToolSync), driven directly with a
 * context of the test's own (the one object the world reads its file through): the run it claims
 * is credited, a refused call reaches no engine, latency waits on the context's clock with the
 * caller's signal, and a run that crashed never gets an answer, whatever the transport.
 */
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { CrashState, isCrashError } from '../../../../src/run/crash';
import type { RunOperationEntry } from '../../../../src/world/door';
import { type CallVia, type WorldContext, WorldHost } from '../../../../src/world/host';

const WORLDS = join(__dirname, '..', '..', '..', '..', 'fixtures', 'worlds');
const GET = { packageId: 'record-store', operationId: 'records.get', input: { id: 'record-2' } };
const CREATE = { packageId: 'record-store', operationId: 'records.create', input: { text: 'new' } };
const SLOW = { packageId: 'notes', operationId: 'notes.list', input: { slow: true } };

interface Run {
  calls: Array<{ index: number }>;
  operations: RunOperationEntry[];
  crash?: CrashState;
}

/** A file context of the test's own: what it was asked, and the run it names. */
function fileOf(world = 'records.world.yaml') {
  const asked: string[] = [];
  const slept: Array<{ ms: number; signal?: AbortSignal }> = [];
  const failed: string[] = [];
  const state: { run?: Run; refused?: string } = {};
  const context: WorldContext = {
    claim: (what) => {
      asked.push(what());
      return state.refused
        ? { refused: { code: 'RUN_ENDED', status: 410, message: state.refused } }
        : { run: state.run };
    },
    currentRun: () => state.run,
    clock: {
      sleep: (ms, signal) => {
        slept.push({ ms, ...(signal && { signal }) });
        return Promise.resolve();
      },
    },
    fail: (code, message) => failed.push(`${code}: ${message}`),
    test: 'a test',
  };
  const host = new WorldHost(context, join(WORLDS, world));
  return { host, asked, slept, failed, state };
}

const newRun = (crash?: CrashState): Run => ({ calls: [], operations: [], ...(crash && { crash }) });
const pending = <T>(promise: Promise<T>) =>
  Promise.race([
    promise.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((resolve) => setTimeout(() => resolve('pending'), 30)),
  ]);

describe('the door', () => {
  it('names the run of every call, whatever carries it, and credits the run with the operation', async () => {
    const { host, asked, state } = fileOf();
    const run = newRun();
    state.run = run;
    const sync = host.callToolSync(GET, { transport: 'direct' });
    const async = await host.callTool(CREATE, { transport: 'cli' });
    expect(sync.outcome).toEqual({ kind: 'ok', value: { id: 'record-2', text: 'notes', version: 1 } });
    expect(async.outcome.kind).toBe('ok');
    expect(asked).toEqual([
      'a world operation (record-store/records.get, transport: direct)',
      'a world operation (record-store/records.create, transport: cli)',
    ]);
    expect(run.operations.map((o) => [o.record.operationId, o.record.transport])).toEqual([
      ['records.get', 'direct'],
      ['records.create', 'cli'],
    ]);
    expect(host.handle.operations.map((o) => o.seq)).toEqual([1, 2]);
  });

  it('answers a refused call with its envelope, and no engine sees it', async () => {
    const { host, state } = fileOf();
    state.refused = 'the run had ended';
    const result = await host.callTool(CREATE, { transport: 'http' });
    expect(result).toEqual({
      outcome: {
        kind: 'error',
        error: { code: 'RUN_ENDED', message: 'the run had ended', retryable: false, status: 410 },
      },
      delayMs: 0,
    });
    expect(host.handle.operations).toEqual([]);
    expect(Object.keys(host.handle.state['record-store'].records)).toEqual(['record-1', 'record-2']);
  });

  it("waits an async call's latency on the file's clock, ended by the caller's signal; a sync call does not wait", async () => {
    const { host, slept } = fileOf('notes.world.yaml');
    const { signal } = new AbortController();
    const async = await host.callTool(SLOW, { transport: 'mcp', signal });
    expect(async.delayMs).toBe(1500);
    expect(slept).toEqual([{ ms: 1500, signal }]);
    const sync = host.callToolSync(SLOW, { transport: 'direct' });
    expect(sync.delayMs).toBe(1500);
    expect(slept).toHaveLength(1);
  });

  it('calls the engine a binding names, else the running one', async () => {
    const { host } = fileOf();
    const other = host.createEngine(host.require('the test'), {});
    const via: CallVia = { transport: 'direct', engine: other };
    await host.callTool(CREATE, via);
    expect(other.operations).toHaveLength(1);
    expect(host.handle.operations).toHaveLength(0);
  });
});

describe('a run that crashed', () => {
  const crashed = (host: WorldHost, state: { run?: Run }) => {
    const crash = new CrashState({ afterOperation: 'record-store/records.create' });
    state.run = newRun(crash);
    // The call the crash comes after: its own answer is the first one the run never gets.
    void host.callTool(CREATE, { transport: 'direct' });
    expect(crash.fired).toBe(true);
    return crash;
  };

  it('never gets the answer of an async call (the call itself is made)', async () => {
    const { host, state } = fileOf();
    crashed(host, state);
    expect(await pending(host.callTool(GET, { transport: 'mcp' }))).toBe('pending');
    expect(host.handle.operations.map((o) => o.operationId)).toEqual(['records.create', 'records.get']);
  });

  it('gets its CrashError thrown from a sync call', () => {
    const { host, state } = fileOf();
    const crash = crashed(host, state);
    let thrown: unknown;
    try {
      host.callToolSync(GET, { transport: 'direct' });
    } catch (error) {
      thrown = error;
    }
    expect(isCrashError(thrown)).toBe(true);
    expect(thrown).toBe(crash.error);
    expect(() => host.stopIfCrashed()).toThrow(crash.error as Error);
  });

  it('never gets what failed before the world either (answer, hold)', async () => {
    const { host, state } = fileOf();
    const failing = () =>
      host.answer(0, () => {
        throw new Error('an input mapping threw');
      });
    await expect(failing()).rejects.toThrow('an input mapping threw');
    crashed(host, state);
    expect(await pending(failing())).toBe('pending');
    expect(await pending(host.hold(Promise.resolve('late')))).toBe('pending');
  });
});

describe('an in-process MCP connection', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const save = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'save_note', arguments: { id: 'note-2', text: 'second' } },
  };

  it('closes when the file is done only while an answer is still due (a crashed run holds it)', async () => {
    const { host, state } = fileOf('notes.world.yaml');
    const answered = host.handle.mcpTransport('notes');
    const held = host.handle.mcpTransport('notes');
    const closed: string[] = [];
    const messages: unknown[] = [];
    answered.onclose = () => closed.push('answered');
    held.onclose = () => closed.push('held');
    held.onmessage = (message) => messages.push(message);
    await answered.send(initialize);
    state.run = newRun(new CrashState({ afterOperation: 'notes/notes.save' }));
    await held.send(save);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(messages).toEqual([]);
    expect(host.handle.state.notes.notes['note-2']).toEqual({ id: 'note-2', text: 'second' });
    await host.fileFinished();
    expect(closed).toEqual(['held']);
  });
});
