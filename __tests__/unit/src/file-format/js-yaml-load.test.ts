/**
 * js-yaml's file runs through the environment's runner of large files (V8's code cache, kept
 * between processes) when the host set one: a Vitest worker, a process per test file, would
 * otherwise compile it in every file that reads a YAML fixture or world.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { recordingRunner } from '../../../support/file-runner';

type Parse = typeof import('../../../../src/file-format/parse');
type Services = typeof import('../../../../src/host-services');

function fresh(): { parse: Parse; services: Services } {
  let loaded: { parse: Parse; services: Services } | undefined;
  jest.isolateModules(() => {
    loaded = {
      parse: require('../../../../src/file-format/parse'),
      services: require('../../../../src/host-services'),
    };
  });
  return loaded!;
}

const TEXT =
  'fixtures:\n  - &first { match: { userMessage: hi }, response: { content: hello } }\n  - { <<: *first, response: { content: again } }\n';

describe('js-yaml', () => {
  it("runs through the host's runner when one is set, once, and parses as required", () => {
    const { parse, services } = fresh();
    const ran: string[] = [];
    services.runFilesWith(recordingRunner(ran));
    const first = parse.parseHere(TEXT, 'yaml', 'a.fixture.yaml', { code: 'FIXTURE_PARSE_ERROR' });
    const second = parse.parseHere('x: [1, 2]\n', 'yaml', 'b.fixture.yaml', { code: 'FIXTURE_PARSE_ERROR' });
    expect(ran).toEqual([require.resolve('js-yaml')]);
    // Anchors and merge keys work with the runner's copy, as with require's.
    expect(first).toEqual({
      data: {
        fixtures: [
          { match: { userMessage: 'hi' }, response: { content: 'hello' } },
          { match: { userMessage: 'hi' }, response: { content: 'again' } },
        ],
      },
    });
    expect(second).toEqual({ data: { x: [1, 2] } });
    // A problem's line numbers come from the same copy's event parser.
    const broken = parse.parseHere('a: 1\na: 2\n', 'yaml', 'c.fixture.yaml', { code: 'FIXTURE_PARSE_ERROR' });
    expect(broken).toEqual({ issue: expect.objectContaining({ file: 'c.fixture.yaml', line: 2 }) });
    expect(ran).toHaveLength(1);
  });

  it('is required as any module without a runner', () => {
    const { parse } = fresh();
    expect(parse.parseHere('x: 1\n', 'yaml', 'd.fixture.yaml', { code: 'FIXTURE_PARSE_ERROR' })).toEqual({
      data: { x: 1 },
    });
  });
});
