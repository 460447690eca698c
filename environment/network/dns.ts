/**
 * DNS: a lookup of a name that is not loopback, or a query to a resolver that is not, would send
 * a packet; both are decided like connections (transport `dns`). Looking up an IP address or
 * `localhost` stays on the machine.
 */
import dns from 'node:dns';
import { isIP } from 'node:net';
import { afterRefusal, type GuardContext, Patches, patch } from './guard';
import { refusalError, type Target } from './policy';
import { hostOfServer } from './targets';

/** Functions that ask the configured DNS servers (c-ares), on the module and on a `Resolver`. */
const QUERIES = [
  'resolve',
  'resolve4',
  'resolve6',
  'resolveAny',
  'resolveCaa',
  'resolveCname',
  'resolveMx',
  'resolveNaptr',
  'resolveNs',
  'resolvePtr',
  'resolveSoa',
  'resolveSrv',
  'resolveTlsa',
  'resolveTxt',
  'reverse',
] as const;

type Anything = (...args: unknown[]) => unknown;
type Target0 = Record<string, unknown> & { getServers?: () => string[] };

export function guardDns(options: GuardContext): () => void {
  const patches = new Patches();
  const decide = (target: Target) => options.decide(target);

  /** What a call would reach, or undefined when it stays local. */
  const lookupTarget = (name: unknown): Target | undefined =>
    typeof name !== 'string' || isIP(name) !== 0
      ? undefined
      : { transport: options.label('dns'), host: name, subject: `a dns lookup of ${name}` };
  const queryTarget = (owner: Target0, name: unknown): Target | undefined => {
    const servers = (owner.getServers?.() ?? dns.getServers()).map(hostOfServer);
    const server = servers.find(
      (s) => decide({ transport: options.label('dns'), host: s, port: 53 }).action !== 'pass',
    );
    return server === undefined
      ? undefined
      : {
          transport: options.label('dns'),
          host: server,
          port: 53,
          subject: `a dns query for ${String(name)}`,
        };
  };

  const guard = (
    owner: Target0,
    key: string,
    promises: boolean,
    targetOf: (self: Target0, name: unknown) => Target | undefined,
  ) => {
    if (typeof owner[key] !== 'function') return;
    patches.add(
      patch(
        owner,
        key,
        (next) =>
          function guarded(this: Target0, ...args: unknown[]) {
            const target = targetOf(this ?? owner, args[0]);
            const verdict = target && decide(target);
            if (!target || !verdict || verdict.action !== 'refuse')
              return (next as Anything).apply(this, args);
            const error = key.startsWith('lookup')
              ? refusalError(target, 'ENOTFOUND', 'getaddrinfo')
              : refusalError(target, 'ECONNREFUSED', 'query');
            if (promises)
              return new Promise((_, reject) => afterRefusal(options, verdict.message, () => reject(error)));
            const callback = args[args.length - 1];
            afterRefusal(options, verdict.message, () => {
              if (typeof callback === 'function') callback(error);
            });
            return undefined;
          },
      ),
    );
  };

  const lookups = (_owner: Target0, name: unknown) => lookupTarget(name);
  const reverseOf = (_owner: Target0, address: unknown) =>
    typeof address === 'string' &&
    decide({ transport: options.label('dns'), host: address }).action !== 'pass'
      ? { transport: options.label('dns'), host: address, subject: `a reverse dns lookup of ${address}` }
      : undefined;
  for (const [owner, promises] of [
    [dns as unknown as Target0, false],
    [dns.promises as unknown as Target0, true],
  ] as const) {
    guard(owner, 'lookup', promises, lookups);
    guard(owner, 'lookupService', promises, reverseOf);
    for (const key of QUERIES) guard(owner, key, promises, queryTarget);
  }
  for (const [owner, promises] of [
    [dns.Resolver.prototype as unknown as Target0, false],
    [dns.promises.Resolver.prototype as unknown as Target0, true],
  ] as const)
    for (const key of QUERIES) guard(owner, key, promises, queryTarget);
  return () => patches.restore();
}
