import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { missingEnvironmentMessage, sandboxFacts } from '../../../../src/sandbox/missing-environment';

const dir = mkdtempSync(join(tmpdir(), 'understudy-missing-env-'));
const testFile = (source: string) => {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.test.js`);
  writeFileSync(path, source);
  return path;
};

describe('the message when the environment is not running a file', () => {
  it('without the setup file: the preset, or testEnvironment and setupFilesAfterEnv together', () => {
    const message = missingEnvironmentMessage({ setupRan: false });
    expect(message).toContain("Set `preset: 'jest-understudy'` in your Jest config");
    expect(message).toContain(
      "set both `testEnvironment: 'jest-understudy/environment'` and `setupFilesAfterEnv: ['jest-understudy/setup']`",
    );
    // A docblock alone would leave the matchers unregistered: never suggested.
    expect(message).not.toContain('@jest-environment');
  });

  it('under Vitest: the plugin, not the preset', () => {
    const message = missingEnvironmentMessage({ setupRan: false, vitest: true });
    expect(message).toContain(
      "`plugins: [understudy()]` with `import understudy from 'jest-understudy/vitest'`",
    );
    expect(message).not.toContain('preset');
  });

  it('with the setup file and a @jest-environment docblock: names the docblock, not the preset', () => {
    const path = testFile("/**\n * @jest-environment node\n */\nrequire('jest-understudy');\n");
    const message = missingEnvironmentMessage({ setupRan: true, testPath: path });
    expect(message).toContain("the file's docblock `@jest-environment node` replaces the environment");
    expect(message).not.toContain('Set `preset');
  });

  it('with the setup file and no docblock: a testEnvironment beside the preset replaced it', () => {
    const path = testFile("/** @understudy-tags smoke */\nrequire('jest-understudy');\n");
    for (const testPath of [path, undefined]) {
      const message = missingEnvironmentMessage({ setupRan: true, testPath });
      expect(message).toContain('a `testEnvironment` set beside the preset');
      expect(message).not.toContain('Set `preset');
    }
  });

  it('reads the facts of this realm: the setup file ran here, and the test file is this one', () => {
    expect(sandboxFacts()).toEqual({ setupRan: true, testPath: __filename });
  });
});
