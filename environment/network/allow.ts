/**
 * `testEnvironmentOptions.understudy.network.allow`: `host:port` patterns the network policy
 * lets through untouched (`localhost:5432` for a database container, `*.internal.test:443`).
 * Pure: parsing, validation messages and matching.
 */
import { isIP } from 'node:net';
import { isLoopback, type Target } from './policy';

export interface AllowPattern {
  /** As written in the options. */
  text: string;
  /** Lower case, without brackets; for `*.internal.test` the suffix `.internal.test`. */
  host: string;
  wildcard: boolean;
  /** `*` for every port. */
  port: number | '*';
}

const HOST_NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

/** The pattern, or why it is not one (a sentence that ends with an example). */
export function parseAllowPattern(text: string): AllowPattern | string {
  const example = 'e.g. "localhost:5432", "*.internal.test:443" or "db.internal.test:*"';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const url = URL.canParse(text) ? new URL(text) : undefined;
    if (!url?.hostname) return `is a URL; give a host:port pattern instead (${example})`;
    const port = url.port || (url.protocol === 'http:' || url.protocol === 'ws:' ? 80 : 443);
    return `is a URL; give a host:port pattern instead, here "${url.hostname}:${port}"`;
  }
  const v6 = /^\[([^\]]+)\]:(.*)$/.exec(text);
  const at = text.lastIndexOf(':');
  const [rawHost, rawPort] = v6
    ? [v6[1], v6[2]]
    : at === -1
      ? [text, undefined]
      : [text.slice(0, at), text.slice(at + 1)];
  if (rawPort === undefined || rawPort === '')
    return `has no port; give one, or "*" for every port (${example})`;
  if (!v6 && rawHost.includes(':'))
    return `is an IPv6 address without brackets; write it as "[${rawHost}]:${rawPort}"`;
  let port: number | '*';
  if (rawPort === '*') port = '*';
  else if (/^\d+$/.test(rawPort) && Number(rawPort) >= 1 && Number(rawPort) <= 65535) port = Number(rawPort);
  else return `has port ${JSON.stringify(rawPort)}; a port is a number from 1 to 65535, or "*"`;
  const wildcard = rawHost.startsWith('*.');
  const host = (wildcard ? rawHost.slice(1) : rawHost).toLowerCase().replace(/\.$/, '');
  if (v6 ? isIP(host) !== 6 : !(isIP(host) === 4 || HOST_NAME.test(wildcard ? host.slice(1) : host)))
    return `has host ${JSON.stringify(rawHost)}; a host is a name, an IP address, or "*." and a domain (${example})`;
  return { text, host, wildcard, port };
}

function hostMatches(pattern: AllowPattern, host: string): boolean {
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (pattern.wildcard) return h.endsWith(pattern.host) && h.length > pattern.host.length;
  // Loopback is one machine however it is named: `localhost:5432` also allows 127.0.0.1:5432 and [::1]:5432.
  if (isLoopback(pattern.host)) return isLoopback(h);
  return h === pattern.host;
}

/** Whether a pattern allows the target; a DNS lookup (no port) is allowed when the host is, at any port. */
export function allows(patterns: readonly AllowPattern[], target: Target): boolean {
  return patterns.some(
    (p) =>
      hostMatches(p, target.host) && (target.port === undefined || p.port === '*' || p.port === target.port),
  );
}

/** The patterns of valid entries (the options were validated at start-up). */
export function allowPatterns(entries: readonly string[]): AllowPattern[] {
  return entries.map(parseAllowPattern).filter((p): p is AllowPattern => typeof p !== 'string');
}
