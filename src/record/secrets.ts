/**
 * The keys in use, so no written file ever contains one. Recording notes every credential
 * a request carried (the test realm keeps them in memory only) and the key variables hold
 * the rest; `findKeyInUse` is the writer's last check before a file reaches the disk.
 */
import { realKeys } from './mode';

const REGISTRY = Symbol.for('jest-understudy.keys-in-use');

function registry(): Set<string> {
  const g = globalThis as Record<symbol, unknown>;
  let set = g[REGISTRY] as Set<string> | undefined;
  if (!set) {
    set = new Set();
    g[REGISTRY] = set;
  }
  return set;
}

/** Shorter strings are too likely to occur by chance (and no provider key is that short). */
const MIN_LENGTH = 8;

/** Remembers a credential a recorded request carried. */
export function noteKeyInUse(value: string): void {
  if (value.length >= MIN_LENGTH) registry().add(value);
}

/** Every key in use: credentials seen on recorded requests and the provider key variables' values. */
export function keysInUse(env: NodeJS.ProcessEnv = process.env): string[] {
  const keys = new Set(registry());
  for (const { value } of realKeys(env)) if (value.length >= MIN_LENGTH) keys.add(value);
  return [...keys];
}

/** The name of what leaked (never the key itself), or undefined when the text holds no key in use. */
export function findKeyInUse(text: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const key of keysInUse(env)) {
    if (!text.includes(key)) continue;
    const variable = realKeys(env).find((k) => k.value === key)?.name;
    return variable
      ? `the value of ${variable}`
      : `a credential a recorded request carried (${key.slice(0, 3)}…, ${key.length} characters)`;
  }
  return undefined;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Patterns for `scrubSecrets` that blank every key in use wherever it appears. */
export function keyPatterns(env: NodeJS.ProcessEnv = process.env): RegExp[] {
  return keysInUse(env).map((key) => new RegExp(escapeRegExp(key), 'g'));
}
