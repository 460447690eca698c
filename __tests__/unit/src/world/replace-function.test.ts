/**
 * "Replace an imported function": each rule of mockTool and module overrides, as a case.
 *
 * @understudy-world ../../../../fixtures/worlds/records.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { mockTool, runDrills, ToolMockError, understudy, WorldError } from 'jest-understudy';
import {
  getRecordSync,
  RecordStoreError,
  realCalls,
  recordsClient,
  saveRecord,
} from '../../../support/agents/records-client';

// The global `jest` (not the @jest/globals import): @swc/jest hoists jest.mock calls on it.
jest.mock('../../../support/agents/records-client', () => ({
  ...jest.requireActual<typeof import('../../../support/agents/records-client')>(
    '../../../support/agents/records-client',
  ),
  saveRecord: jest.fn(),
  getRecordSync: jest.fn(),
}));

const SAVE = { packageId: 'record-store', operationId: 'records.save' } as const;
const GET = { packageId: 'record-store', operationId: 'records.get' } as const;

afterEach(() => {
  jest.restoreAllMocks();
  jest.mocked(saveRecord).mockReset();
  realCalls.count = 0;
});

describe('mockTool · Replace an imported function', () => {
  it('rule: mockTool targets a package declared with bindings [direct]; a package without "direct" is refused', () => {
    const binding = understudy.world.bind();
    expect(() =>
      mockTool(binding, { mode: 'async', operation: { packageId: 'mailer', operationId: 'mail.send' } }),
    ).toThrow(
      expect.objectContaining({
        name: 'WorldError',
        code: 'BINDING_UNSUPPORTED',
        message: expect.stringContaining('package "mailer" has bindings [mcp], not "direct"'),
      }),
    );
  });

  it('rule: the named operation must exist in your world (refused when the mock is made, with a suggestion)', () => {
    const binding = understudy.world.bind();
    const make = (operationId: string) => () =>
      mockTool(binding, { mode: 'async', operation: { packageId: 'record-store', operationId } });
    expect(make('records.sav')).toThrow(WorldError);
    expect(make('records.sav')).toThrow(
      'package "record-store" has no operation "records.sav" (did you mean "records.save"?)',
    );
    expect(() =>
      mockTool(binding, { mode: 'async', operation: { packageId: 'records', operationId: 'x' } }),
    ).toThrow('has no package "records"');
  });

  it('rule: the input schema must match the mapped values (a mismatch fails the call with INVALID_INPUT)', async () => {
    const save = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: SAVE,
      input: (id: string, text: unknown) => ({ id, text }),
    });
    const error = await save('record-1', 42).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolMockError);
    expect(error).toMatchObject({
      code: 'INVALID_INPUT',
      status: 400,
      envelope: { code: 'INVALID_INPUT', retryable: false, details: { problems: ['$.text must be string'] } },
    });
    expect(understudy.world.state['record-store'].records['record-1']).toMatchObject({ text: 'first draft' });
  });

  it("rule: the helper returns the operation's JSON value by default", async () => {
    const save = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: SAVE,
      input: (id: string, text: string) => ({ id, text }),
    });
    await expect(save('record-1', 'hello')).resolves.toEqual({ id: 'record-1', text: 'hello', version: 2 });
  });

  it('rule: use output(value) to preserve a different native return shape', async () => {
    const save = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: SAVE,
      input: (id: string, text: string) => ({ id, text }),
      output: (value: { id: string; version: number }) => `${value.id}@v${value.version}`,
    });
    await expect(save('record-1', 'hello')).resolves.toBe('record-1@v2');
  });

  it('rule: mode sync makes a synchronous function, mode async one that returns a Promise', async () => {
    const binding = understudy.world.bind();
    const get = mockTool(binding, { mode: 'sync', operation: GET, input: (id: string) => ({ id }) });
    const getAsync = mockTool(binding, { mode: 'async', operation: GET, input: (id: string) => ({ id }) });
    expect(get('record-1')).toEqual({ id: 'record-1', text: 'first draft', version: 1 });
    const pending = getAsync('record-1');
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).resolves.toEqual({ id: 'record-1', text: 'first draft', version: 1 });
    // A failure: thrown in sync mode, rejected in async mode.
    expect(() => get('nope')).toThrow(ToolMockError);
    await expect(getAsync('nope')).rejects.toBeInstanceOf(ToolMockError);
  });

  it('rule: a failed operation throws/rejects with ToolMockError, including envelope and status', async () => {
    const get = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: GET,
      input: (id: string) => ({ id }),
    });
    const error = (await get('record-9').catch((e: unknown) => e)) as ToolMockError;
    expect(error).toBeInstanceOf(ToolMockError);
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(404);
    expect(error.envelope).toEqual({
      code: 'NOT_FOUND',
      message: 'records "record-9" does not exist',
      retryable: false,
      status: 404,
    });
    expect(error.operation).toEqual(GET);
    expect(error.seq).toBe(understudy.world.operations.at(-1)?.seq);
  });

  it("rule: error(envelope) constructs the dependency's native Error class instead", async () => {
    const get = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: GET,
      input: (id: string) => ({ id }),
      error: (envelope) => new RecordStoreError(envelope.code, envelope.message, envelope.status),
    });
    const error = await get('record-9').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordStoreError);
    expect(error).not.toBeInstanceOf(ToolMockError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
  });

  it('rule: retries of one logical request reuse a key; distinct requests use distinct keys', async () => {
    const save = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: SAVE,
      input: (id: string, text: string) => ({ id, text }),
      idempotencyKey: (id: string, text: string) => `save-${id}:${text}`,
    });
    // Two tries of one logical save (same key): one state change.
    await save('record-1', 'final');
    await save('record-1', 'final');
    expect(understudy.world.state['record-store'].records['record-1'].version).toBe(2);
    // A distinct request (another key): a second change.
    await save('record-1', 'final, really');
    expect(understudy.world.state['record-store'].records['record-1'].version).toBe(3);
    expect(understudy.world.operations.map((o) => [o.idempotencyKey, o.idempotent ?? null])).toEqual([
      ['save-record-1:final', null],
      ['save-record-1:final', { replayed: true, of: 1 }],
      ['save-record-1:final, really', null],
    ]);
  });

  it('rule: a repeated successful key returns its receipt before selecting a new override', async () => {
    const save = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: SAVE,
      input: (id: string, text: string) => ({ id, text }),
      idempotencyKey: (id: string, text: string) => `save-${id}:${text}`,
    });
    // busy-once fails the first save; then `stub` answers every save of record-1, unless a receipt does.
    understudy.world.reset({
      scenario: {
        toolOverrides: [
          {
            id: 'stub',
            operation: SAVE,
            when: { arguments: { id: 'record-1' } },
            outcome: { kind: 'return', value: { id: 'record-1', text: 'stubbed', version: 9 } },
          },
          {
            id: 'busy-once',
            operation: SAVE,
            when: { arguments: { id: 'record-1' } },
            times: 1,
            outcome: { kind: 'error', code: 'BUSY' },
          },
        ],
      },
    });
    await expect(save('record-1', 'x')).rejects.toMatchObject({ code: 'BUSY' }); // busy-once
    await expect(save('record-1', 'x')).resolves.toMatchObject({ text: 'stubbed' }); // stub, receipt stored
    await expect(save('record-1', 'x')).resolves.toMatchObject({ text: 'stubbed' }); // receipt, no rule
    const [first, second, third] = understudy.world.operations;
    expect(first.override).toEqual({ id: 'busy-once', scope: 'test', outcome: 'error', matchCount: 1 });
    expect(second.override).toEqual({ id: 'stub', scope: 'test', outcome: 'return', matchCount: 1 });
    expect(third.override).toBeUndefined();
    expect(third.idempotent).toEqual({ replayed: true, of: second.seq });
  });

  it("rule: Jest's mocks (jest.mock + jest.mocked(fn).mockImplementation) install the callable", async () => {
    jest.mocked(saveRecord).mockImplementation(
      mockTool(understudy.world.bind(), {
        mode: 'async',
        operation: SAVE,
        input: (id: string, text: string) => ({ id, text }),
      }),
    );
    await expect(saveRecord('record-1', 'from the module mock')).resolves.toMatchObject({ version: 2 });
    jest
      .mocked(getRecordSync)
      .mockImplementation(
        mockTool(understudy.world.bind(), { mode: 'sync', operation: GET, input: (id: string) => ({ id }) }),
      );
    expect(getRecordSync('record-1')).toMatchObject({ text: 'from the module mock' });
    expect(realCalls.count).toBe(0);
  });

  it('rule: spies install the same callable (jest.spyOn(obj, "m").mockImplementation)', async () => {
    jest
      .spyOn(recordsClient, 'getRecord')
      .mockImplementation(
        mockTool(understudy.world.bind(), { mode: 'async', operation: GET, input: (id: string) => ({ id }) }),
      );
    await expect(recordsClient.getRecord('record-2')).resolves.toMatchObject({ text: 'notes' });
    expect(realCalls.count).toBe(0);
  });

  it('rule: a spy must replace its implementation; spying alone still calls the real service', async () => {
    const spy = jest.spyOn(recordsClient, 'getRecord');
    await expect(recordsClient.getRecord('record-2')).rejects.toThrow('the real record store was called');
    expect(realCalls.count).toBe(1);
    spy.mockImplementation(
      mockTool(understudy.world.bind(), { mode: 'async', operation: GET, input: (id: string) => ({ id }) }),
    );
    await recordsClient.getRecord('record-2');
    expect(realCalls.count).toBe(1);
  });

  it('rule: restore spies after tests; restoring runner mocks does not reset the world', async () => {
    jest
      .spyOn(recordsClient, 'getRecord')
      .mockImplementation(mockTool(understudy.world.bind(), { mode: 'async', operation: SAVE }));
    await recordsClient.getRecord({ id: 'record-1', text: 'kept' } as never);
    jest.restoreAllMocks();
    await expect(recordsClient.getRecord('record-1')).rejects.toThrow('real record store');
    expect(understudy.world.state['record-store'].records['record-1'].text).toBe('kept');
    expect(understudy.world.operations).toHaveLength(1);
    understudy.world.reset();
    expect(understudy.world.state['record-store'].records['record-1'].text).toBe('first draft');
  });

  it('rule: module replacements must not be shared by overlapping drills (a second drill while one runs is refused)', async () => {
    let release!: () => void;
    const first = runDrills({ drill: 'playground', agent: () => new Promise<void>((r) => (release = r)) });
    await Promise.resolve();
    await expect(runDrills({ drill: 'playground', agent: async () => undefined })).rejects.toMatchObject({
      code: 'DRILL_OVERLAP',
    });
    release();
    await expect(first).resolves.toMatchObject({ verdict: 'passed' });
    // Once the first drill is over, the next one runs.
    await expect(runDrills({ drill: 'playground', agent: async () => undefined })).resolves.toMatchObject({
      verdict: 'passed',
    });
  });

  describe('rule: a retained mockTool callable rejects after its binding expires', () => {
    let retained: ((id: string) => Promise<unknown>) | undefined;
    let retainedSync: ((id: string) => unknown) | undefined;

    it('(a binding made in a test works during it)', async () => {
      const binding = understudy.world.bind();
      retained = mockTool(binding, { mode: 'async', operation: GET, input: (id: string) => ({ id }) });
      retainedSync = mockTool(binding, { mode: 'sync', operation: GET, input: (id: string) => ({ id }) });
      await expect(retained('record-1')).resolves.toMatchObject({ id: 'record-1' });
      expect(binding.expired).toBe(false);
    });

    it('(… and expires with that test)', async () => {
      await expect(retained!('record-1')).rejects.toMatchObject({
        name: 'ToolMockError',
        code: 'BINDING_EXPIRED',
        status: 410,
        message: expect.stringContaining('belonged to the test'),
      });
      expect(() => retainedSync!('record-1')).toThrow('after its binding expired');
      expect(understudy.world.operations).toEqual([]);
    });

    it("(a drill's binding expires when the drill ends)", async () => {
      let kept: ((id: string) => Promise<unknown>) | undefined;
      const result = await runDrills({
        drill: 'playground',
        agent: async ({ binding }) => {
          kept = mockTool(binding, { mode: 'async', operation: GET, input: (id: string) => ({ id }) });
          await kept('record-1');
        },
      });
      expect(result.evidence).toHaveLength(1);
      await expect(kept!('record-1')).rejects.toMatchObject({ code: 'BINDING_EXPIRED' });
    });
  });
});
