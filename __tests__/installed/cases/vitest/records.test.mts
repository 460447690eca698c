/**
 * Seed 000's "Replace an imported function", as a Vitest user writes it: the agent imports
 * saveRecord from its records-client module, the test replaces it with vi.mock and installs
 * mockTool per drill; the world's busy-once override makes the first save BUSY.
 *
 * @understudy-world ./records/records.world.yaml
 */
import { type DrillAgentContext, mockTool, runDrills, script, understudy } from 'jest-understudy';
import { afterEach, expect, test, vi } from 'vitest';
import { runRecordsAgent } from './records/agent';
import { RecordStoreError, type SaveOptions, saveRecord } from './records/records-client';

vi.mock('./records/records-client', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./records/records-client')>()),
  saveRecord: vi.fn(),
}));
afterEach(() => vi.resetAllMocks());

const INSTRUCTION = 'Save record-1 with the text "final" and log it.';

const agent =
  (saveAttempts: number) =>
  async ({ task, binding }: DrillAgentContext) => {
    vi.mocked(saveRecord).mockImplementation(
      mockTool(binding, {
        mode: 'async',
        operation: { packageId: 'record-store', operationId: 'records.save' },
        input: (id: string, text: string) => ({ id, text }),
        idempotencyKey: (_id: string, _text: string, options?: SaveOptions) => options?.requestId,
        error: (envelope) => new RecordStoreError(envelope.code, envelope.message, envelope.retryable),
      }),
    );
    return runRecordsAgent(task.instruction, { saveAttempts });
  };

const saveFlow = () =>
  script()
    .user(INSTRUCTION)
    .callsTool('get_record', { id: 'record-1' })
    .callsTool('save_record', { id: 'record-1', text: 'final' })
    .callsTool('log_activity', { recordId: 'record-1', action: 'saved' })
    .replies('record-1 now reads "final".');

test('the agent saves the intended record (it retries the busy store)', async () => {
  understudy.model.use(saveFlow());
  const result = await runDrills({ drill: 'save-record', agent: agent(3) });
  expect(result).toHavePassedDrill();
  expect(result.evidence.map((op) => (op.outcome.kind === 'error' ? op.outcome.error.code : 'ok'))).toEqual([
    'ok',
    'BUSY',
    'ok',
    'ok',
  ]);
});

test('an agent that does not retry fails the drill', async () => {
  understudy.model.use(saveFlow());
  const result = await runDrills({ drill: 'save-record', agent: agent(1) });
  expect(result).toHavePassedDrill();
});
