/**
 * Drives the Jest environment in a plain node process (the host realm, as Jest's worker runs it):
 * constructs it for a file, sets it up, stands in for the preset's setup file with a `loadSession`
 * whose session serves nothing, and fetches a provider host during the file's tests or after
 * `run_finish`. Prints what happened as JSON: whether the session was created and asked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Circus } from '@jest/types';
import { readConfig } from 'jest-config';
import UnderstudyEnvironment from '../../../environment/jest/index';
import { BRIDGE_KEY, type Bridge, type FileSession } from '../../../src/sandbox/bridge';

async function main(when: string): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'understudy-late-session-'));
  try {
    const config = await readConfig({ $0: 'jest', _: [] } as never, { rootDir: root }, true, root);
    const env = new UnderstudyEnvironment(config, {
      console,
      docblockPragmas: {},
      testPath: join(root, 'agent.test.js'),
    } as never);
    await env.setup();
    const bridge = (env.global as unknown as Record<symbol, Bridge>)[BRIDGE_KEY];
    const seen = { sessionCreated: false, sessionAsked: false, error: '' };
    bridge.loadSession = () => {
      seen.sessionCreated = true;
      return {
        handleFetch: () => {
          seen.sessionAsked = true;
          return undefined;
        },
        serves: () => false,
      } as unknown as FileSession;
    };
    if (when === 'after')
      await env.handleTestEvent(
        { name: 'run_finish' } as Circus.Event,
        { unhandledErrors: [] } as unknown as Circus.State,
      );
    try {
      await (env.global.fetch as typeof fetch)('https://api.openai.com/v1/models');
    } catch (error) {
      seen.error = String((error as Error)?.cause ?? error);
    }
    await env.teardown();
    process.stdout.write(`${JSON.stringify(seen)}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main(process.argv[2] ?? 'during').catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
