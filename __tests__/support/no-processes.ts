/**
 * Setup file of the unit tier, which starts no process: a test file there that spawns one (a child
 * Jest, the CLI, Chromium, a network namespace, any command) fails at the call, saying where such
 * a test belongs. The mock lives in the file's own module registry, so nothing outside it changes.
 */
import { jest } from '@jest/globals';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

function refusing(): Record<string, unknown> {
  const actual = jest.requireActual<Record<string, unknown>>('node:child_process');
  const refused = Object.fromEntries(
    STARTERS.map((name) => [
      name,
      () => {
        throw new Error(
          `child_process.${name}: the unit tier starts no process; a test that needs one belongs in __tests__/e2e (npm run test:e2e)`,
        );
      },
    ]),
  );
  return { ...actual, ...refused };
}

jest.mock('node:child_process', refusing);
jest.mock('child_process', refusing);
