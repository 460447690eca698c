/**
 * The records agent against its world: the store's client module is replaced with
 * jest.mock + mockTool, the records and activity HTTP APIs are served by the world, and the
 * save-record drill checks that a BUSY store is retried and nothing is saved twice.
 *
 * @understudy-world ./records.world.yaml
 */
import { describe, expect, it } from '@jest/globals';
import {
  type Binding,
  type DrillAgentContext,
  mockTool,
  runDrills,
  script,
  understudy,
} from 'jest-understudy';
import { runRecordsAgent } from './agent';
import { RecordStoreError, type SaveOptions, saveRecord } from './records-client';

// The global `jest`: @swc/jest hoists jest.mock above the imports only on it.
jest.mock('./records-client', () => ({
  ...jest.requireActual<typeof import('./records-client')>('./records-client'),
  saveRecord: jest.fn(),
}));

const INSTRUCTION = 'Save record-1 with the text "final" and log it.';

// The model's side: read, save, save again (the model double-checks), log, answer.
const saveFlow = script()
  .user(INSTRUCTION)
  .callsTool('get_record', { id: 'record-1' })
  .callsTool('save_record', { id: 'record-1', text: 'final' })
  .callsTool('save_record', { id: 'record-1', text: 'final' })
  .callsTool('log_activity', { recordId: 'record-1', action: 'saved' })
  .replies('record-1 now reads "final".');

/** Installs the world's records.save as saveRecord: retries of one save reuse its request id. */
function mockRecordStore(binding: Binding) {
  jest.mocked(saveRecord).mockImplementation(
    mockTool(binding, {
      mode: 'async',
      operation: { packageId: 'record-store', operationId: 'records.save' },
      input: (id: string, text: string) => ({ id, text }),
      idempotencyKey: (_id: string, _text: string, options?: SaveOptions) => options?.requestId,
      // The client's own error class, so the agent's retry logic sees what production throws.
      error: (envelope) => new RecordStoreError(envelope.code, envelope.message, envelope.retryable),
    }),
  );
}

const agent =
  (saveAttempts = 3) =>
  async ({ task, binding }: DrillAgentContext) => {
    mockRecordStore(binding);
    return runRecordsAgent(task.instruction, { saveAttempts });
  };

describe('the save-record drill', () => {
  it('passes: the agent retries the BUSY store, and the repeated save is answered from its receipt', async () => {
    understudy.model.use(saveFlow);

    const result = await runDrills({ drill: 'save-record', agent: agent() });

    expect(result).toHavePassedDrill();
    expect(
      result.evidence.map((op) => {
        const how = op.outcome.kind === 'error' ? op.outcome.error.code : op.idempotent ? 'receipt' : 'ok';
        return `${op.transport} ${op.operationId} ${how}`;
      }),
    ).toEqual([
      'http records.get ok',
      'direct records.save BUSY', // busy-once, from the scenario
      'direct records.save ok', // the agent's retry, same request id
      'direct records.save receipt', // the model saved again: same request id, no second write
      'http activity.log ok',
    ]);
    expect(result.state['record-store'].records['record-1']).toEqual({
      id: 'record-1',
      text: 'final',
      version: 2,
    });
  });

  it("links each of the model's tool calls to the operations that served it", async () => {
    understudy.model.use(saveFlow);

    const { runs } = await runDrills({ drill: 'save-record', agent: agent() });

    const [run] = runs;
    expect(run.toolCalls.map((call) => [call.name, call.operations])).toEqual([
      ['get_record', [1]],
      ['save_record', [2, 3]], // BUSY, then the retry
      ['save_record', [4]],
      ['log_activity', [5]],
    ]);
    expect(run.operations.map((op) => op.toolCallId)).toEqual(
      run.toolCalls.flatMap((c) => c.operations!.map(() => c.id)),
    );
    expect(run).toHaveCalledToolSequence(['get_record', 'save_record', 'save_record', 'log_activity']);
    expect(run).toHaveFinalMessage('now reads "final"');
  });

  it('fails for an agent that does not retry, and says which criteria failed', async () => {
    understudy.model.use(
      script()
        .user(INSTRUCTION)
        .callsTool('get_record', { id: 'record-1' })
        .callsTool('save_record', { id: 'record-1', text: 'final' })
        .replies('The store is busy, sorry.'),
    );

    const result = await runDrills({ drill: 'save-record', agent: agent(1) });

    expect(result.verdict).toBe('failed');
    expect(result).not.toHavePassedDrill();
    expect(result.reasons).toEqual([
      'record-1 holds the new text: found "first draft"',
      'record-1 was saved exactly once (version 1 → 2): found 1',
      'record-store/records.save succeeding (not replays) called exactly once: none matched; the calls were: #2 records.save {"id":"record-1","text":"final"} → BUSY',
      'activity/activity.log with {"recordId":"record-1"} called exactly once: it was never called',
    ]);
    expect(() => expect(result).toHavePassedDrill()).toThrow(/✓ no operation failed \(except BUSY\)/);
  });

  it('takes per-test rules: an inline scenario where the store is busy twice (the agent has three attempts)', async () => {
    understudy.model.use(saveFlow);

    const result = await runDrills({
      drill: 'save-record',
      agent: agent(),
      setup: {
        scenario: {
          toolOverrides: [
            {
              id: 'busy-twice',
              operation: { packageId: 'record-store', operationId: 'records.save' },
              times: 2,
              outcome: { kind: 'error', code: 'BUSY', retryable: true },
            },
          ],
        },
      },
    });

    expect(result).toHavePassedDrill();
    expect(
      result.evidence.filter((op) => op.override?.id === 'busy-twice').map((op) => op.override?.matchCount),
    ).toEqual([1, 2]);
    expect(result.build.testRules).toHaveLength(1);
  });

  it('reproduces the same evidence from the build and seed', async () => {
    understudy.model.use(saveFlow);
    const first = await runDrills({ drill: 'save-record', agent: agent() });

    const again = await runDrills({ build: first.build, seed: first.seed, agent: agent() });

    expect(again.evidence).toEqual(first.evidence);
    expect(again.verdict).toBe('passed');
  });
});

describe('outside drills', () => {
  it('the same world serves a plain understudy.run: state and evidence are there to inspect', async () => {
    understudy.model.use(saveFlow);
    mockRecordStore(understudy.world.bind({ actorId: 'records-agent' }));

    const run = await understudy.run(() => runRecordsAgent(INSTRUCTION));

    expect(run).toHaveTerminalState('succeeded');
    expect(understudy.world.state['record-store'].records['record-1'].version).toBe(2); // no BUSY here
    expect(run.operations.map((op) => op.operationId)).toEqual([
      'records.get',
      'records.save',
      'records.save',
      'activity.log',
    ]);
    expect(run.operations[2].idempotent).toEqual({ replayed: true, of: 2 });
    expect(understudy.world.events.map((e) => e.event.type)).toEqual(['record.saved']);
  });
});
