import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildTest } from '../support/child-jest';
import { runInstalled } from '../support/installed';
import { type Counts, isolatedNetwork } from '../support/netns';

const OPTION = 'testEnvironmentOptions.understudy.network.allow';

describe('the network policy on loopback (in a network namespace whose other processes listen on loopback)', () => {
  let tests: ChildTest[] = [];
  let counts: Counts;
  let stderr = '';
  beforeAll(async () => {
    const network = isolatedNetwork(['api.allowed.invalid']);
    const run = await runInstalled({
      cases: ['network-policy.case.js'],
      understudy: { traces: 'off', network: { allow: ['localhost:6379', '*.allowed.invalid:443'] } },
      prefix: network.prefix,
    });
    tests = run.files.flatMap((file) => file.tests);
    counts = network.counts();
    stderr = run.stderr;
  }, 120_000);

  const test = (title: string) => {
    const found = tests.find((t) => t.title === title);
    if (!found) throw new Error(`no test titled ${title}:\n${stderr}`);
    return { ...found, messages: found.failureMessages.map((m) => stripVTControlCharacters(m)) };
  };

  it.each([
    'supertest against an express app in the test',
    'an express app the test started, reached by fetch, undici, node:http and net',
    'a server a worker thread started, reached from the test, and one the test started, reached from a worker',
    'network.allow lets localhost:6379 through to the other process',
    'network.allow lets *.allowed.invalid:443 through, name lookup included',
  ])('passes: %s', (title) => {
    const t = test(title);
    expect(t.messages).toEqual([]);
    expect(t.status).toBe('passed');
  });

  it("fails a connection to another process's loopback port, naming it and the option that allows it", () => {
    const t = test('a loopback port another process listens on (a database): net.connect to 127.0.0.1:5432');
    expect(t.status).toBe('failed');
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]).toContain(
      'a connection to 127.0.0.1:5432 reached the network layer, but nothing mocks it (transport: net, host: 127.0.0.1, port: 5432).',
    );
    expect(t.messages[0]).toContain(
      'No server of this test process listens on port 5432: loopback passes only to those',
    );
    expect(t.messages[0]).toContain(`To let it through untouched, add "127.0.0.1:5432" to ${OPTION}.`);
  });

  it('fails a request to a local model server that is not listed as a provider, saying how to serve it', () => {
    const t = test('a local model server another process runs: fetch to localhost:8080');
    expect(t.status).toBe('failed');
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]).toContain(
      'POST http://localhost:8080/v1/chat/completions reached the network layer, but nothing mocks it (transport: fetch, host: localhost, port: 8080).',
    );
    expect(t.messages[0]).toContain(
      'A local model server (Ollama on localhost:11434) is a provider: add its base URL to testEnvironmentOptions.understudy.providers.openai.baseURL and it is served.',
    );
    expect(t.messages[0]).toContain(`add "localhost:8080" to ${OPTION}`);
  });

  it('only what network.allow names reached the other processes', () => {
    // The control proves the traps count a connection to each port.
    expect(counts.control).toEqual(expect.objectContaining({ 'tcp:5432': expect.any(Number) }));
    expect(counts.test).toEqual({ 'tcp:6379': 2, 'tcp:443': 1 });
  });
});
