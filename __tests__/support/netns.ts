/**
 * A network namespace with only loopback, for suites that try to reach hosts that must not be
 * reached: nothing can leave the machine from inside it. Its /etc/hosts points the given names
 * at loopback and its resolver is loopback too, where ./netns/traps.cjs counts every connection,
 * datagram and DNS query. A plain node process first makes the same attempts (the control), so
 * a suite can check both that the traps see leaks and that the contained run made none.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const RUN = resolve(__dirname, 'netns', 'run.sh');

/** The names ./netns/leak-probe.cjs connects to and sends to (its lookups of dns.invalid must fail). */
const PROBED = ['db.invalid', 'udp.invalid'];

export type Counts = Record<'control' | 'test', Record<string, number> | undefined>;

export interface IsolatedNetwork {
  /** The command a child runs under (see `prefix` in ./child-jest.ts). */
  prefix: string[];
  /** What the traps counted, by phase: `{ control: { 'tcp:5432': 1, 'udp:53': 2 }, test: {} }`. */
  counts(): Counts;
  /** The names DNS was asked for, by phase (the traps' resolver answers every one "no such name"). */
  lookups(): Record<'control' | 'test', string[] | undefined>;
}

export function isolatedNetwork(hosts: string[]): IsolatedNetwork {
  const tools = spawnSync('sh', ['-c', 'command -v unshare && command -v ip && command -v mount'], {
    encoding: 'utf8',
  });
  if (tools.status !== 0 || process.getuid?.() !== 0)
    throw new Error(
      'this suite runs its cases in a network namespace with only loopback: it needs root and the unshare, ip ' +
        'and mount commands (util-linux, iproute2; .ci/run installs them)',
    );
  const dir = mkdtempSync(join(tmpdir(), 'understudy-netns-'));
  writeFileSync(
    join(dir, 'hosts'),
    [
      '127.0.0.1 localhost',
      '::1 localhost',
      ...[...new Set([...PROBED, ...hosts])].map((host) => `127.0.0.1 ${host}`),
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'resolv.conf'), 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n');
  return {
    prefix: ['unshare', '-nm', 'sh', RUN, dir],
    counts: () => {
      const file = join(dir, 'counts.json');
      const counts = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
      return { control: counts.control, test: counts.test };
    },
    lookups: () => {
      const file = join(dir, 'names.json');
      const names = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
      return { control: names.control, test: names.test };
    },
  };
}
