/**
 * The records agent example (examples/records-agent, copied beside this file as ./records) under
 * Vitest, beyond seed 000's drill (records.test.mts): the repeated save answered from its receipt,
 * each tool call linked to the operations that served it, and the same world outside drills. An
 * agent that does not retry the busy store must fail the drill, saying which criteria failed.
 *
 * @understudy-world ./records/records.world.yaml
 */
import {
  type Binding,
  type DrillAgentContext,
  mockTool,
  runDrills,
  script,
  understudy,
} from 'jest-understudy';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runRecordsAgent } from './records/agent';
import { RecordStoreError, type SaveOptions, saveRecord } from './records/records-client';

vi.mock('./records/records-client', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./records/records-client')>()),
  saveRecord: vi.fn(),
}));
afterEach(() => vi.resetAllMocks());

const INSTRUCTION = 'Save record-1 with the text "final" and log it.';

// The model's side: read, save, save again (the model double-checks), log, answer.
const saveFlow = () =>
  script()
    .user(INSTRUCTION)
    .callsTool('get_record', { id: 'record-1' })
    .callsTool('save_record', { id: 'record-1', text: 'final' })
    .callsTool('save_record', { id: 'record-1', text: 'final' })
    .callsTool('log_activity', { recordId: 'record-1', action: 'saved' })
    .replies('record-1 now reads "final".');

/** Installs the world's records.save as saveRecord: retries of one save reuse its request id. */
function mockRecordStore(binding: Binding) {
  vi.mocked(saveRecord).mockImplementation(
    mockTool(binding, {
      mode: 'async',
      operation: { packageId: 'record-store', operationId: 'records.save' },
      input: (id: string, text: string) => ({ id, text }),
      idempotencyKey: (_id: string, _text: string, options?: SaveOptions) => options?.requestId,
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
  it('answers the repeated save from its receipt and links each tool call to its operations', async () => {
    understudy.model.use(saveFlow());

    const result = await runDrills({ drill: 'save-record', agent: agent() });

    expect(result).toHavePassedDrill();
    expect(
      result.evidence.map((op) => {
        const how = op.outcome.kind === 'error' ? op.outcome.error.code : op.idempotent ? 'receipt' : 'ok';
        return `${op.transport} ${op.operationId} ${how}`;
      }),
    ).toEqual([
      'http records.get ok',
      'direct records.save BUSY',
      'direct records.save ok',
      'direct records.save receipt',
      'http activity.log ok',
    ]);
    const [run] = result.runs;
    expect(run.toolCalls.map((call) => [call.name, call.operations])).toEqual([
      ['get_record', [1]],
      ['save_record', [2, 3]],
      ['save_record', [4]],
      ['log_activity', [5]],
    ]);
    expect(run).toHaveCalledToolSequence(['get_record', 'save_record', 'save_record', 'log_activity']);
    expect(run).toHaveFinalMessage('now reads "final"');
  });

  it('an agent that does not retry fails the drill', async () => {
    // Its tool answers BUSY; the model gives up.
    understudy.model.use(
      script()
        .user(INSTRUCTION)
        .callsTool('get_record', { id: 'record-1' })
        .callsTool('save_record', { id: 'record-1', text: 'final' })
        .replies('The store is busy, sorry.'),
    );

    const result = await runDrills({ drill: 'save-record', agent: agent(1) });

    expect(result).toHavePassedDrill();
  });
});

describe('outside drills', () => {
  it('the same world serves a plain understudy.run: state and evidence are there to inspect', async () => {
    understudy.model.use(saveFlow());
    mockRecordStore(understudy.world.bind({ actorId: 'records-agent' }));

    const run = await understudy.run(() => runRecordsAgent(INSTRUCTION));

    expect(run).toHaveTerminalState('succeeded');
    expect(understudy.world.state['record-store'].records['record-1'].version).toBe(2);
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
