/** The drill criteria language, on a fixed state and evidence (plain functions). */
import { describe, expect, it } from '@jest/globals';
import type { Criterion, OperationRecord } from 'jest-understudy';
import { evaluateCriteria } from '../../../../src/world/criteria';

const state = {
  store: {
    records: { 'r-1': { id: 'r-1', text: 'final draft', tags: ['a', 'b'] } },
  },
};
const op = (
  seq: number,
  operationId: string,
  input: object,
  outcome: OperationRecord['outcome'],
  extra: Partial<OperationRecord> = {},
) =>
  ({
    seq,
    packageId: 'store',
    operationId,
    input,
    actorId: 'agent',
    transport: 'direct',
    outcome,
    clockMs: 0,
    ...extra,
  }) as OperationRecord;
const evidence = [
  op(
    1,
    'save',
    { id: 'r-1', text: 'x' },
    { kind: 'error', error: { code: 'BUSY', message: 'busy', retryable: true, status: 503 } },
  ),
  op(2, 'save', { id: 'r-1', text: 'final draft' }, { kind: 'ok', value: {} }),
  op(
    3,
    'save',
    { id: 'r-1', text: 'final draft' },
    { kind: 'ok', value: {} },
    { idempotent: { replayed: true, of: 2 } },
  ),
];
const check = (criterion: Criterion) => {
  const [result] = evaluateCriteria([criterion], state, evidence);
  return result.passed ? `✓ ${result.description}` : `✗ ${result.description}: ${result.found}`;
};

describe('drill criteria', () => {
  it('state: equals, contains (object subset, list element, substring), exists', () => {
    expect(check({ state: '$.store.records.r-1.text', equals: 'final draft' })).toBe(
      '✓ state $.store.records.r-1.text equals "final draft"',
    );
    expect(check({ state: '$.store.records["r-1"]', contains: { text: 'final draft' } })).toMatch(/^✓/);
    expect(check({ state: '$.store.records.r-1.tags', contains: 'b' })).toMatch(/^✓/);
    expect(check({ state: '$.store.records.r-1.text', contains: 'draft' })).toMatch(/^✓/);
    expect(check({ state: '$.store.records.r-2', exists: false })).toBe(
      '✓ state $.store.records.r-2 does not exist',
    );
    expect(check({ state: '$.store.records.r-2.text', equals: 'x' })).toBe(
      '✗ state $.store.records.r-2.text equals "x": nothing at $.store.records.r-2.text',
    );
    expect(check({ state: '$.store.records.r-1.tags[1]', equals: 'a' })).toBe(
      '✗ state $.store.records.r-1.tags[1] equals "a": found "b"',
    );
  });

  it('called: a filter (arguments as a deep subset, outcome, code, replayed) and times (a number or a range)', () => {
    expect(check({ called: { packageId: 'store', operationId: 'save' }, times: 3 })).toMatch(/^✓/);
    expect(
      check({
        called: { packageId: 'store', operationId: 'save', outcome: 'ok', replayed: false },
        times: 1,
      }),
    ).toMatch(/^✓/);
    expect(check({ called: { packageId: 'store', code: 'BUSY' }, times: { max: 1 } })).toMatch(/^✓/);
    expect(
      check({
        called: { packageId: 'store', operationId: 'save', arguments: { text: 'x' } },
        times: { min: 2 },
      }),
    ).toBe(
      '✗ store/save with {"text":"x"} called at least 2 times: 1 matched: #1 save {"id":"r-1","text":"x"} → BUSY',
    );
    expect(check({ called: { packageId: 'store', operationId: 'delete' } })).toBe(
      '✗ store/delete called at least once: it was never called',
    );
  });

  it('notCalled and noErrors (with exceptions)', () => {
    expect(check({ notCalled: { packageId: 'store', operationId: 'delete' } })).toBe(
      '✓ store/delete never called',
    );
    expect(check({ notCalled: { packageId: 'store', outcome: 'error' } })).toBe(
      '✗ an operation of store failing never called: called: #1 save {"id":"r-1","text":"x"} → BUSY',
    );
    expect(check({ noErrors: true })).toBe(
      '✗ no operation failed: 1 failed: #1 save {"id":"r-1","text":"x"} → BUSY',
    );
    expect(check({ noErrors: { except: ['BUSY'] } })).toBe('✓ no operation failed (except BUSY)');
  });

  it('a description replaces the generated wording', () => {
    expect(
      check({ description: 'the draft is final', state: '$.store.records.r-1.text', equals: 'final draft' }),
    ).toBe('✓ the draft is final');
  });
});
