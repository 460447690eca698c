import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildTest } from '../support/child-jest';
import { RUNNERS, runInstalled } from '../support/installed';
import { type Counts, isolatedNetwork } from '../support/netns';
import { runnersOf } from '../support/runner-tier';

/** Each blocked case, with what its failure must name: transport, host and port. */
const BLOCKED: Array<
  [title: string, transport: string, host: string, port: number | undefined, subject: string]
> = [
  [
    'undici.fetch to tracker.invalid',
    'undici',
    'tracker.invalid',
    443,
    'GET https://tracker.invalid/collect',
  ],
  [
    'new OpenAI({ fetch: undici.fetch }) with a base URL nothing serves',
    'undici',
    'llm.invalid',
    443,
    'POST https://llm.invalid/v1/chat/completions',
  ],
  [
    'undici.request to tracker.invalid',
    'undici',
    'tracker.invalid',
    443,
    'POST https://tracker.invalid/collect',
  ],
  [
    'undici.stream to tracker.invalid',
    'undici',
    'tracker.invalid',
    443,
    'GET https://tracker.invalid/stream',
  ],
  [
    'undici.fetch through an explicit Agent to agent.invalid',
    'tls',
    'agent.invalid',
    443,
    'a connection to agent.invalid:443',
  ],
  [
    'an undici.Client to client.invalid',
    'net',
    'client.invalid',
    8080,
    'a connection to client.invalid:8080',
  ],
  ['net.connect to db.invalid:5432', 'net', 'db.invalid', 5432, 'a connection to db.invalid:5432'],
  ['tls.connect to tls.invalid:8443', 'tls', 'tls.invalid', 8443, 'a connection to tls.invalid:8443'],
  ['http2.connect to h2.invalid', 'http2', 'h2.invalid', 443, 'a connection to h2.invalid:443'],
  ['dgram send to udp.invalid:5353', 'dgram', 'udp.invalid', 5353, 'a datagram to udp.invalid:5353'],
  ['dns.lookup of dns.invalid', 'dns', 'dns.invalid', undefined, 'a dns lookup of dns.invalid'],
  ['the global WebSocket to ws.invalid', 'websocket', 'ws.invalid', 443, 'WebSocket wss://ws.invalid/socket'],
  [
    "undici's WebSocket to undici-ws.invalid",
    'websocket',
    'undici-ws.invalid',
    8080,
    'WebSocket ws://undici-ws.invalid:8080/socket',
  ],
  [
    "undici's WebSocket to a provider path no socket protocol serves",
    'websocket',
    'api.openai.com',
    443,
    'WebSocket wss://api.openai.com/v1/no-such-socket',
  ],
  [
    "undici's WebSocket to a provider host through an explicit Agent",
    'websocket',
    'api.anthropic.com',
    443,
    'WebSocket wss://api.anthropic.com/v1/no-such-socket',
  ],
  [
    'the ws package to ws-package.invalid',
    'websocket',
    'ws-package.invalid',
    443,
    'WebSocket wss://ws-package.invalid/socket',
  ],
  ['node:https to https.invalid', 'http', 'https.invalid', 443, 'GET https://https.invalid/health'],
  [
    'fetch in a worker thread to worker.invalid',
    'worker fetch',
    'worker.invalid',
    443,
    'GET https://worker.invalid/collect',
  ],
  [
    'net.connect in a worker thread to worker-net.invalid:6379',
    'worker net',
    'worker-net.invalid',
    6379,
    'a connection to worker-net.invalid:6379',
  ],
  [
    'fetch in a worker a worker started, to nested.invalid',
    'worker fetch',
    'nested.invalid',
    443,
    'GET https://nested.invalid/',
  ],
];

const SERVED = [
  'serves new OpenAI({ fetch: undici.fetch })',
  'serves undici.fetch through an explicit Agent, attributing the call to the run',
  'serves a streamed reply through an explicit undici Agent',
  'serves undici.request',
  'serves undici.Client and undici.Pool',
  'serves http2.connect',
  'serves node:https (answered by msw)',
  'lets WebSocket clients reach a loopback WebSocket server: ws, and the global WebSocket where Node has one',
  'lets loopback through: a server this test started answers undici, node:http and net',
  'serves a world host to undici.fetch, undici.request, an explicit Agent and http2',
];

const HOSTS = [...new Set(BLOCKED.map(([, , host]) => host).filter((host) => host !== 'dns.invalid'))];

describe.each(runnersOf(__filename))(
  'replay contains every transport (in a network namespace with only loopback; %s)',
  (runner) => {
    let tests: ChildTest[] = [];
    let counts: Counts;
    let stderr = '';
    beforeAll(async () => {
      // dns.invalid stays out of /etc/hosts: a lookup of it that got out would reach the DNS trap.
      const network = isolatedNetwork(HOSTS);
      const run = await runInstalled({
        ...RUNNERS[runner],
        cases: ['containment-blocked.case.js', 'containment-served.case.js', 'containment-world.case.js'],
        understudy: { traces: 'off' },
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

    it.each(BLOCKED)(
      '%s: fails the test, naming the transport, host and port',
      (title, transport, host, port, subject) => {
        const t = test(title);
        expect(t.status).toBe('failed');
        // The agent swallowed its error and its own assertions passed: jest-understudy alone failed the test.
        expect(t.messages).toHaveLength(1);
        const where = [
          `transport: ${transport}`,
          `host: ${host}`,
          ...(port === undefined ? [] : [`port: ${port}`]),
        ];
        expect(t.messages[0]).toContain(
          `${subject} reached the network layer, but nothing mocks it (${where.join(', ')})`,
        );
      },
    );

    it.each(SERVED)('%s', (title) => {
      const t = test(title);
      expect(t.messages).toEqual([]);
      expect(t.status).toBe('passed');
    });

    it('nothing reached the listeners on loopback or the DNS server, which do see the same attempts from a plain process', () => {
      // The control proves the traps catch a connection, a UDP datagram, a lookup and a DNS query.
      expect(counts.control).toEqual(
        expect.objectContaining({
          'tcp:5432': expect.any(Number),
          'udp:5353': 1,
          'udp:53': expect.any(Number),
        }),
      );
      expect(counts.control?.['udp:53']).toBeGreaterThanOrEqual(2);
      expect(counts.test).toBeUndefined();
    });
  },
);
