/**
 * Serve mode from the installed package, CommonJS without the flag and ESM with it: agents in
 * other processes (Python, a shell script using `understudy tool call`, an agent spawning
 * `understudy mcp stdio`) against the file's model and world.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { python } from '../../examples/support/child';
import { runInstalled } from '../support/installed';

const EXAMPLES = join(__dirname, '..', '..', 'examples');
const files = {
  'serve-orders.world.yaml': readFileSync(join(EXAMPLES, 'python-agent', 'orders.world.yaml'), 'utf8'),
  'serve-agent.py': readFileSync(join(EXAMPLES, 'python-agent', 'agent.py'), 'utf8'),
};

describe('serve mode from the installed package', () => {
  it.each([
    ['CommonJS, no flag', false],
    ['with --experimental-vm-modules', true],
  ])(
    'a Python agent on the served port (%s)',
    async (_, esm) => {
      const run = await runInstalled({
        cases: ['serve-python.case.js'],
        esm,
        files,
        env: { UNDERSTUDY_PYTHON: python() },
      });
      const [file] = run.files;
      expect(file.tests.map((t) => [t.title, t.status])).toEqual([
        ['a Python agent replays a 3-step tool loop', 'passed'],
        [
          'no false green: a Python agent the model cannot answer, whose exit code the test ignores',
          'failed',
        ],
      ]);
      const message = file.tests[1].failureMessages.join('\n');
      expect(message).toContain('MODEL_UNMATCHED');
      expect(message).toContain('userMessage: "Cancel my subscription"');
    },
    120_000,
  );
});
