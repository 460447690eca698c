/**
 * A mockTool's `error(envelope)` builds the native error a failed operation throws; one that builds
 * nothing (a missing `return`) must not turn the failure into an undefined success the agent reads
 * as done: the call throws MOCKTOOL_ERROR and the test fails even when the agent catches it.
 */
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { WorldHost } from '../../../../src/world/host/host';
import { mockTool } from '../../../../src/world/transports/mock-tool';

const WORLD = join(__dirname, '..', '..', '..', '..', 'fixtures', 'worlds', 'records.world.yaml');
const SAVE = { packageId: 'record-store', operationId: 'records.save' } as const;

function lockedWorld() {
  const failed: string[] = [];
  const host = new WorldHost(
    {
      claim: () => ({ run: undefined }),
      currentRun: () => undefined,
      clock: { sleep: () => Promise.resolve() },
      fail: (code, message) => failed.push(`${code}: ${message}`),
      test: 'a test',
    },
    WORLD,
  );
  host.handle.reset({
    scenario: {
      toolOverrides: [{ id: 'locked', operation: SAVE, outcome: { kind: 'error', code: 'LOCKED' } }],
    },
  });
  return { binding: host.handle.bind(), failed };
}

class NativeError extends Error {}
const record = { id: 'record-1', text: 'a' };

describe("a mockTool's error builder", () => {
  it('throws what it builds, sync and async, and fails nothing', async () => {
    const { binding, failed } = lockedWorld();
    const error = (e: { code: string }) => new NativeError(e.code);
    expect(() => mockTool(binding, { mode: 'sync', operation: SAVE, error })(record)).toThrow(NativeError);
    await expect(mockTool(binding, { mode: 'async', operation: SAVE, error })(record)).rejects.toThrow(
      'LOCKED',
    );
    expect(failed).toEqual([]);
  });

  it.each([
    ['undefined', () => undefined],
    ['null', () => null],
  ])('that returns %s throws MOCKTOOL_ERROR and fails the test, sync and async', async (what, error) => {
    const { binding, failed } = lockedWorld();
    const message = `the mockTool for record-store/records.save: error(envelope) returned ${what} for a failed call (LOCKED); return the native error to throw`;
    expect(() => mockTool(binding, { mode: 'sync', operation: SAVE, error })(record)).toThrow(
      expect.objectContaining({ code: 'MOCKTOOL_ERROR', message: expect.stringContaining(message) }),
    );
    // An agent that swallows the rejection still leaves the failure behind.
    const swallowed = await mockTool(binding, { mode: 'async', operation: SAVE, error })(record).then(
      () => 'resolved',
      () => 'rejected',
    );
    expect(swallowed).toBe('rejected');
    expect(failed).toEqual([`MOCKTOOL_ERROR: ${message}`, `MOCKTOOL_ERROR: ${message}`]);
  });
});
