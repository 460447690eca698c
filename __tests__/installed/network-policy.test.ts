import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildTest } from '../support/child-jest';
import {
  type InstalledProject,
  type InstalledProjectRun,
  RUNNERS,
  type Runner,
  runInstalledProjects,
} from '../support/installed';
import { type Counts, isolatedNetwork } from '../support/netns';
import { runnersOf } from '../support/runner-tier';

const OPTION = 'testEnvironmentOptions.understudy.network.allow';

/**
 * The runners the msw cases run under: msw 3, and msw 2 through its ES-module-only dependency
 * rettime, load only as ES modules, which Jest's CommonJS runtime requires only under
 * --experimental-vm-modules on Node 24.9 or later (vm's synchronous module evaluation). Under Jest
 * without the flag, or on an older Node, msw cannot load in a Jest test file at all, with or
 * without jest-understudy, so there is nothing to run there. Vitest loads ES modules itself.
 */
const MSW_RUNNERS: Runner[] = (() => {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 9) ? ['jest-esm', 'vitest'] : ['vitest'];
})();

/** The driver's case projects (each its own folder and options), and the runners each runs under. */
const PROJECTS = {
  'network-policy': {
    runners: runnersOf(__filename),
    cases: ['network-policy.case.js'],
    understudy: { traces: 'off', network: { allow: ['localhost:6379', '*.allowed.invalid:443'] } },
  },
  'msw-setup': {
    runners: MSW_RUNNERS,
    cases: ['msw-setup.case.js'],
    config: { setupFilesAfterEnv: ['<rootDir>/msw/setup.js'] },
    vitestConfig: { setupFiles: ['msw/setup.js'] },
    understudy: { traces: 'off' },
  },
  'http-use': {
    runners: MSW_RUNNERS,
    cases: ['http-use.case.js'],
    understudy: { traces: 'off', handlers: 'msw/handlers.js' },
  },
  gateway: {
    runners: runnersOf(__filename),
    cases: ['gateway.case.js'],
    understudy: {
      traces: 'off',
      providers: {
        openai: { baseURL: 'http://gateway.invalid/v1' },
        anthropic: { baseURL: 'http://gateway.invalid' },
      },
    },
  },
} satisfies Record<string, InstalledProject & { runners: readonly Runner[] }>;
type Name = keyof typeof PROJECTS;
/** The hosts the cases name, pointed at loopback in the namespace's /etc/hosts. */
const HOSTS = ['api.allowed.invalid'];

/**
 * One child per runner runs every project of the driver that runs under it, in one network
 * namespace with only loopback (the cases name hosts that must never be reached): one Jest or
 * Vitest start and one namespace instead of one per project. The traps count what the whole
 * child reached, so a connection any of its projects made shows in the count network-policy
 * checks.
 */
const batches = new Map<Runner, Promise<{ runs: Record<string, InstalledProjectRun>; counts: Counts }>>();
function batch(runner: Runner) {
  let started = batches.get(runner);
  if (!started) {
    const network = isolatedNetwork(HOSTS);
    const projects = Object.fromEntries(
      Object.entries(PROJECTS)
        .filter(([, { runners }]) => (runners as readonly Runner[]).includes(runner))
        .map(([name, { runners: _, ...project }]) => [name, project as InstalledProject]),
    );
    started = runInstalledProjects(projects, { ...RUNNERS[runner], prefix: network.prefix }).then((runs) => ({
      runs,
      counts: network.counts(),
    }));
    batches.set(runner, started);
  }
  return started;
}

/** Project `name`'s tests by title, from its runner's child, with what the traps counted. */
function contained(name: Name, runner: Runner) {
  const got: { tests: ChildTest[]; counts?: Counts; stderr: string } = { tests: [], stderr: '' };
  beforeAll(async () => {
    const { runs, counts } = await batch(runner);
    const run = runs[name];
    got.tests = run.files.flatMap((file) => [
      ...file.tests,
      // A file that failed to run fails every title the driver asks for, with its message.
      ...(file.message
        ? [{ title: '(file)', fullName: file.name, status: 'failed', failureMessages: [file.message] }]
        : []),
    ]);
    got.counts = counts;
    got.stderr = run.process.stderr;
  }, 180_000);
  const test = (title: string) => {
    const found = got.tests.find((t) => t.title === title);
    const file = got.tests.find((t) => t.title === '(file)');
    if (!found)
      throw new Error(
        `no test titled ${title} in ${name}:\n${file?.failureMessages.join('\n') ?? got.stderr}`,
      );
    return { ...found, messages: found.failureMessages.map((m) => stripVTControlCharacters(m)) };
  };
  return { test, counts: () => got.counts };
}

/** A test the case file must fail, with one message that says all of `parts`. */
function failsWith(t: { status: string; messages: string[] }, ...parts: string[]) {
  expect(t.status).toBe('failed');
  expect(t.messages).toHaveLength(1);
  for (const part of parts) expect(t.messages[0]).toContain(part);
}

function passes(t: { status: string; messages: string[] }) {
  expect(t.messages).toEqual([]);
  expect(t.status).toBe('passed');
}

describe.each(runnersOf(__filename))(
  'the network policy on loopback (in a network namespace whose other processes listen on loopback; %s)',
  (runner) => {
    const { test, counts } = contained('network-policy', runner);

    it.each([
      'supertest against an express app in the test',
      'an express app the test started, reached by fetch, undici, node:http and net',
      'a server a worker thread started, reached from the test, and one the test started, reached from a worker',
      'network.allow lets localhost:6379 through to the other process',
      'network.allow lets *.allowed.invalid:443 through, name lookup included',
    ])('passes: %s', (title) => passes(test(title)));

    it("fails a connection to another process's loopback port, naming it and the option that allows it", () => {
      failsWith(
        test('a loopback port another process listens on (a database): net.connect to 127.0.0.1:5432'),
        'a connection to 127.0.0.1:5432 reached the network layer, but nothing mocks it (transport: net, host: 127.0.0.1, port: 5432).',
        'No server of this test process listens on port 5432: loopback passes only to those',
        `To let it through untouched, add "127.0.0.1:5432" to ${OPTION}.`,
      );
    });

    it('fails a request to a local model server that is not listed as a provider, saying how to serve it', () => {
      failsWith(
        test('a local model server another process runs: fetch to localhost:8080'),
        'POST http://localhost:8080/v1/chat/completions reached the network layer, but nothing mocks it (transport: fetch, host: localhost, port: 8080).',
        'A local model server is a provider, and served when listed: testEnvironmentOptions.understudy.providers.ollama: true for Ollama on localhost:11434',
        `add "localhost:8080" to ${OPTION}`,
      );
    });

    it('only what network.allow names reached the other processes', () => {
      // The control proves the traps count a connection to each port. The count is the whole
      // child's: the driver's other projects, in the same namespace, may reach nothing either.
      expect(counts()?.control).toEqual(expect.objectContaining({ 'tcp:5432': expect.any(Number) }));
      expect(counts()?.test).toEqual({ 'tcp:6379': 2, 'tcp:443': 1 });
    });
  },
);

const REFUSED = (request: string, host: string) => [
  `${request} reached the network layer, but nothing mocks it (transport: fetch, host: ${host}, port: 443).`,
  `To let it through untouched, add "${host}:443" to ${OPTION}.`,
];

for (const runner of MSW_RUNNERS)
  describe(`an existing msw setupServer setup file, unchanged (${runner})`, () => {
    const { test } = contained('msw-setup', runner);

    it.each([
      "the setup file's handlers answer their host, for fetch, undici and node:https",
      'server.use overrides a handler for this test',
      "resetHandlers (the setup's afterEach) took that override away",
      'provider traffic no handler answers is replayed, not handed to onUnhandledRequest',
    ])('passes: %s', (title) => passes(test(title)));

    it("fails a request no handler answers with the network policy's message, not msw's onUnhandledRequest", () => {
      const t = test('a request no handler answers: fetch to unmocked.invalid');
      failsWith(t, ...REFUSED('GET https://unmocked.invalid/v1/data', 'unmocked.invalid'));
      expect(t.messages[0]).not.toContain('[MSW]');
    });

    it('fails a request to its host after server.close(): the handlers answer no more', () => {
      failsWith(
        test('after server.close(): fetch to its host'),
        ...REFUSED('GET https://weather.example.invalid/now', 'weather.example.invalid'),
      );
    });
  });

for (const runner of MSW_RUNNERS)
  describe(`understudy.http.use and the handlers option (${runner})`, () => {
    const { test } = contained('http-use', runner);

    it.each([
      'the handlers option answers every test of the file',
      "understudy.http.use answers in the test that adds it, before the option's handlers, and the run shows each request",
      "a handler for a provider host does not take the mock model's place",
    ])('passes: %s', (title) => passes(test(title)));

    it("fails the next test's request to a host only an earlier test's handler answered: they were reset", () => {
      failsWith(
        test('the next test: fetch to the host only an earlier test handled'),
        ...REFUSED('GET https://stocks.example.invalid/quote', 'stocks.example.invalid'),
      );
    });
  });

describe.each(runnersOf(__filename))('one gateway host listed for two providers (%s)', (runner) => {
  const { test } = contained('gateway', runner);

  it('routes each path to the provider that serves it', () => {
    passes(test('routes /v1/chat/completions to openai and /v1/messages to anthropic under one base URL'));
  });

  it('fails a path neither serves, naming the endpoints of each provider listed there', () => {
    failsWith(
      test('a path neither provider serves: POST /v1/audio/speech'),
      'jest-understudy does not mock POST http://gateway.invalid/v1/audio/speech (openai endpoint /audio/speech).',
      'Several providers are listed at this URL and none serves it:',
      'openai (base URL http://gateway.invalid/v1) serves POST /chat/completions, POST /responses, POST /embeddings',
      'anthropic (base URL http://gateway.invalid) serves POST /v1/messages',
    );
  });
});
