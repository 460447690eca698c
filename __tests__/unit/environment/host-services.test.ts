/**
 * What the environment does once per worker for the sandbox: parsing file formats and the
 * schema validators. Each file still gets objects of its own realm, and data that JSON cannot
 * carry is parsed in the sandbox instead.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { hostServicesForWorker } from '../../../environment/host-services';
import { loadFixtures } from '../../../src/fixtures/load';
import { hostServices } from '../../../src/host-services';

const yaml = 'fixtures:\n  - match: { userMessage: hi }\n    response: { content: hello }\n';

describe("the environment's host services", () => {
  it('parse a text once and hand out JSON text, which each sandbox parses into its own objects', () => {
    const services = hostServicesForWorker();
    const first = services.parseText(yaml, 'yaml', '/x/a.fixture.yaml', { code: 'FIXTURE_PARSE_ERROR' });
    const second = services.parseText(yaml, 'yaml', '/x/a.fixture.yaml', { code: 'FIXTURE_PARSE_ERROR' });
    expect(first).toEqual({
      json: JSON.stringify({ fixtures: [{ match: { userMessage: 'hi' }, response: { content: 'hello' } }] }),
    });
    expect(second).toBe(first);
  });

  it('give parse issues as JSON text, naming the file and line', () => {
    const served = hostServicesForWorker().parseText('fixtures: [\n', 'yaml', '/x/bad.yaml', {
      code: 'FIXTURE_PARSE_ERROR',
    });
    expect(served && 'issue' in served && JSON.parse(served.issue)).toMatchObject({
      code: 'FIXTURE_PARSE_ERROR',
      file: '/x/bad.yaml',
      line: expect.any(Number),
    });
  });

  it('leave data JSON cannot carry (.inf, .nan) to the sandbox', () => {
    const services = hostServicesForWorker();
    expect(
      services.parseText('a: .inf\n', 'yaml', '/x/inf.yaml', { code: 'FIXTURE_PARSE_ERROR' }),
    ).toBeUndefined();
  });

  it('are what this test file sees, and the fixtures it loads are objects of the test realm', () => {
    // The environment's own (host) services, not a copy loaded by this file.
    expect(hostServices()).toBeDefined();
    expect(hostServices()).not.toBe(hostServicesForWorker());
    const dir = mkdtempSync(join(tmpdir(), 'understudy-host-'));
    const file = join(dir, 'a.fixture.yaml');
    writeFileSync(file, yaml);
    const fixtures = loadFixtures(file);
    expect(fixtures).toBeInstanceOf(Array);
    expect(fixtures[0].match).toBeInstanceOf(Object);
    expect(Object.getPrototypeOf(fixtures[0].response)).toBe(Object.prototype);
    expect(fixtures[0].response).toEqual({ content: 'hello' });
  });
});
