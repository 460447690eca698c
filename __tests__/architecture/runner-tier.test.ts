/**
 * The runner matrix as a tier (decision 0006): under `npm test` every installed driver runs its cases
 * under exactly one runner, every runner carries some drivers, and the matrix runs them all.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Runner } from '../support/installed';
import { rowsOf, runnersOf } from '../support/runner-tier';

const drivers = readdirSync(join(__dirname, '..', 'installed')).filter((name) => name.endsWith('.test.ts'));
const saved = process.env.UNDERSTUDY_RUNNERS;
const tier = (value: string | undefined) => {
  if (value === undefined) delete process.env.UNDERSTUDY_RUNNERS;
  else process.env.UNDERSTUDY_RUNNERS = value;
};
afterEach(() => tier(saved));

describe('the runner tier', () => {
  it('runs every case under every runner it names in the matrix, and when no tier is named', () => {
    for (const value of ['all', undefined]) {
      tier(value);
      expect(runnersOf('sockets.test.ts')).toEqual(['jest-cjs', 'jest-esm', 'vitest']);
      expect(runnersOf('sockets.test.ts', ['jest-esm', 'vitest'])).toEqual(['jest-esm', 'vitest']);
    }
  });

  it('runs each driver under one runner of its own under `one`, the runners taking turns', () => {
    tier('one');
    const carried: Record<string, number> = {};
    for (const driver of drivers) {
      const runners = runnersOf(driver);
      expect(runners).toHaveLength(1);
      expect(runnersOf(join('/elsewhere', driver))).toEqual(runners);
      carried[runners[0]] = (carried[runners[0]] ?? 0) + 1;
      // A driver whose cases cannot run under its turn's runner still runs under one it can.
      for (const candidates of [['jest-esm', 'vitest'], ['jest-cjs', 'jest-esm'], ['vitest']] as Runner[][]) {
        const [runner, ...rest] = runnersOf(driver, candidates);
        expect(rest).toEqual([]);
        expect(candidates).toContain(runner);
      }
    }
    for (const runner of ['jest-cjs', 'jest-esm', 'vitest'])
      expect(carried[runner]).toBeGreaterThan(drivers.length / 6);
  });

  it('keeps the rows of the chosen runner', () => {
    tier('vitest');
    const rows = [
      ['Jest', 'jest-cjs'],
      ['Vitest', 'vitest'],
    ] as const;
    expect(rowsOf('any.test.ts', rows)).toEqual([['Vitest', 'vitest']]);
    expect(rowsOf('any.test.ts', rows.slice(0, 1))).toEqual([['Jest', 'jest-cjs']]);
  });

  it('names the variable and what it takes when it is set wrong', () => {
    tier('jest,vitest');
    expect(() => runnersOf('any.test.ts')).toThrow(
      'UNDERSTUDY_RUNNERS: expected "all", "one" or runner names from jest-cjs, jest-esm, vitest, got "jest"',
    );
  });
});
