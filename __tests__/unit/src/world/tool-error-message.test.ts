/**
 * What a failed mockTool call says: the code once, then the message when there is one.
 *
 * @understudy-world ../../../../fixtures/worlds/records.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { mockTool, ToolMockError, understudy } from 'jest-understudy';

const SAVE = { packageId: 'record-store', operationId: 'records.save' } as const;
const envelope = (code: string, message: string) => ({ code, message, retryable: true, status: 503 });

describe('a ToolMockError message', () => {
  it('says a code declared without a message once', () => {
    const error = new ToolMockError(envelope('BUSY', 'BUSY'), {
      packageId: 'pager',
      operationId: 'pages.create',
    });
    expect(error.message).toBe('pager/pages.create failed with BUSY');
    expect(error.envelope.message).toBe('BUSY');
  });

  it('says the code and the message when they differ', () => {
    const error = new ToolMockError(envelope('BUSY', 'The pager is busy'), {
      packageId: 'pager',
      operationId: 'pages.create',
    });
    expect(error.message).toBe('pager/pages.create failed with BUSY: The pager is busy');
  });

  it('an override without a message carries the declared message', () => {
    understudy.world.reset({
      scenario: {
        toolOverrides: [{ id: 'locked', operation: SAVE, outcome: { kind: 'error', code: 'LOCKED' } }],
      },
    });
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    expect(() => save({ id: 'record-1', text: 'a' })).toThrow(
      /^record-store\/records\.save failed with LOCKED: The record is locked$/,
    );
  });
});
