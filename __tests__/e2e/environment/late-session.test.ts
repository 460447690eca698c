/**
 * A Jest file's session is created on its first need (the preset's setup file loads the sandbox
 * side then). Once the file's tests and hooks are done, a file that never needed one gets none (Jest's
 * CommonJS runtime refuses a `require` made then): a request it still sends is refused like any other
 * that nothing of the file serves, and loads nothing.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { fromSource } from '../../support/source';

const drive = (when: 'during' | 'after') =>
  JSON.parse(
    execFileSync(process.execPath, [...fromSource(join(__dirname, 'late-session-driver.ts')), when], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 60_000,
    }),
  ) as { sessionCreated: boolean; sessionAsked: boolean; error: string };

describe('a file with no session when its tests are done', () => {
  it('during its tests, a request to a provider host creates the session, which is asked to serve it', () => {
    expect(drive('during')).toEqual({ sessionCreated: true, sessionAsked: true, error: expect.any(String) });
  });

  it('after them, the same request creates no session and is refused, naming the host', () => {
    const seen = drive('after');
    expect(seen).toEqual({ sessionCreated: false, sessionAsked: false, error: expect.any(String) });
    expect(seen.error).toContain('api.openai.com');
  });
});
