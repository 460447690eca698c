/**
 * The one network policy every transport asks before anything leaves the process: is this
 * connection served (a provider or world host, answered by the runtime), passed through, or
 * refused (the test fails, the caller gets a network error)? Pure: no I/O, no patching.
 *
 * The decision is an ordered list of rules; the first that has an opinion wins: served hosts,
 * then loopback ports a server of this test process listens on, then `network.allow`, then
 * lookups that stay on the machine. Everything else is refused.
 */
import { isIP } from 'node:net';

/**
 * How the agent tried to reach the host: `fetch` (the sandbox's global fetch), `http`
 * (node:http/https), `undici`, `websocket`, `net`, `tls`, `http2`, `dgram`, `dns`; a worker
 * thread prefixes its own (`worker fetch`).
 */
export type Transport = string;

export interface Target {
  transport: Transport;
  /** Host name or IP address as the caller gave it (no brackets). */
  host: string;
  /** Absent for a DNS query. */
  port?: number;
  /** The scheme the connection speaks, when it is HTTP: served hosts are matched by origin. */
  protocol?: 'http:' | 'https:';
  /** The request, when one is known (`POST https://tracker.invalid/v1/chat`). */
  request?: string;
  /** What was attempted, when it is not a request or a connection (`a dns lookup of tracker.invalid`). */
  subject?: string;
}

export type Verdict = { action: 'serve' } | { action: 'pass' } | { action: 'refuse'; message: string };

/** A rule decides or abstains (undefined). */
export type Rule = (target: Target) => 'serve' | 'pass' | 'refuse' | undefined;

export interface NetworkPolicy {
  decide(target: Target): Verdict;
}

export function createPolicy(
  rules: Rule[],
  explain: (target: Target) => string = blockedMessage,
): NetworkPolicy {
  return {
    decide(target) {
      for (const rule of rules) {
        const action = rule(target);
        if (action === 'refuse') break;
        if (action) return { action };
      }
      return { action: 'refuse', message: explain(target) };
    },
  };
}

/** What the default rules ask about the test file's process and options. */
export interface PolicyInputs {
  /** Whether the runtime serves this origin (`https://api.openai.com`): provider and world hosts. */
  serves(origin: string): boolean;
  /** Whether a loopback target reaches a port a server of this process listens on. */
  listening(target: Target): boolean;
  /** Whether `network.allow` lets the target through. */
  allowed(target: Target): boolean;
}

/**
 * Served hosts first (even on loopback: a local model server configured as a provider is mocked),
 * then this process's own loopback servers, then `network.allow`, then lookups that stay local.
 */
export function defaultRules(inputs: PolicyInputs): Rule[] {
  return [
    servedRule(inputs.serves),
    (target) => (isLoopback(target.host) && inputs.listening(target) ? 'pass' : undefined),
    (target) => (inputs.allowed(target) ? 'pass' : undefined),
    localLookupRule,
  ];
}

export function servedRule(serves: (origin: string) => boolean): Rule {
  return (target) => {
    const origin = originOf(target);
    return origin !== undefined && serves(origin) ? 'serve' : undefined;
  };
}

/** A lookup of `localhost` or of a loopback address (no port) never leaves the machine. */
export const localLookupRule: Rule = (target) =>
  target.port === undefined && isLoopback(target.host) ? 'pass' : undefined;

/** `https://api.openai.com`, normalized as `new URL(base).origin` is (default port dropped, IPv6 bracketed). */
export function originOf(target: Target): string | undefined {
  if (!target.protocol || target.port === undefined) return undefined;
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  try {
    return new URL(`${target.protocol}//${host}:${target.port}`).origin;
  } catch {
    return undefined;
  }
}

/** A request by URL (`GET https://…`, `ws://` and `wss://` for WebSocket). */
export function requestTarget(method: string, url: string, transport: Transport): Target | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const websocket = u.protocol === 'ws:' || u.protocol === 'wss:';
  if (!websocket && u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  const protocol = u.protocol === 'http:' || u.protocol === 'ws:' ? 'http:' : 'https:';
  return {
    transport,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port) || (protocol === 'http:' ? 80 : 443),
    protocol,
    request: `${websocket ? 'WebSocket' : method} ${u.href}`,
  };
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`: addresses that never leave the machine. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === 'localhost.') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^(0+:){7}0*1$/.test(h) || /^::ffff:127\./.test(h);
  return false;
}

export function hostPort(target: Target): string {
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  return target.port === undefined ? host : `${host}:${target.port}`;
}

/** The failure a refused target gives the test: what was tried, by which transport, and what would allow it. */
export function blockedMessage(target: Target): string {
  const subject = target.request ?? target.subject ?? `a connection to ${hostPort(target)}`;
  const where = [`transport: ${target.transport}`, `host: ${target.host}`];
  if (target.port !== undefined) where.push(`port: ${target.port}`);
  const pattern = target.port === undefined ? `${hostPort(target)}:<port>` : hostPort(target);
  const lines = [`${subject} reached the network layer, but nothing mocks it (${where.join(', ')}).`];
  if (isLoopback(target.host) && target.port !== undefined)
    lines.push(
      `  No server of this test process listens on port ${target.port}: loopback passes only to those (a server the test starts, supertest's).`,
      `  A local model server is a provider, and served when listed: ${OPTIONS}.providers.ollama: true for Ollama on localhost:11434, providers.litellm for a LiteLLM proxy, providers.openai.baseURL for another OpenAI-compatible one.`,
    );
  else
    lines.push(
      '  jest-understudy fails every request it does not serve, so a test never depends on the network.',
      `  For a model provider behind another host, add it to ${OPTIONS}.providers.<name>.baseURL.`,
    );
  lines.push(`  To let it through untouched, add "${pattern}" to ${OPTIONS}.network.allow.`);
  return lines.join('\n');
}

const OPTIONS = 'testEnvironmentOptions.understudy';

/** The error the caller sees for a refused connection: a refused connect, as a network would give it. */
export function refusalError(
  target: Target,
  code = 'ECONNREFUSED',
  syscall = 'connect',
): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException & { address?: string; port?: number } = new Error(
    `${syscall} ${code} ${hostPort(target)}: jest-understudy blocked this ${target.transport} ` +
      'connection (replay never reaches the network)',
  );
  error.code = code;
  error.syscall = syscall;
  error.address = target.host;
  if (target.port !== undefined) error.port = target.port;
  return error;
}
