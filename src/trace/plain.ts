/**
 * Turns test-realm values into plain JSON data for traces: errors become
 * `{ name, message, stack }`, Maps objects, Sets arrays, cycles `"[Circular]"`,
 * functions their name; long strings, lists and objects are cut to the limits given,
 * saying what was left out. Works on values of any realm.
 */
import { inspect } from 'node:util';
import { cutList, cutText, itemsLeftOut } from './budget';
import type { PlainError } from './evidence';

export interface PlainLimits {
  /** Characters a string keeps (default 200,000). */
  maxString?: number;
  /** Items a list keeps (default: all). */
  maxItems?: number;
  /** Keys an object or a Map keeps (default: all). */
  maxKeys?: number;
  /** Applied to a string before it is cut, so no cut leaves part of a secret behind. */
  scrub?: (text: string) => string;
}

const MAX_STRING = 200_000;
const MAX_DEPTH = 40;

function isErrorLike(value: object): value is Error {
  return (
    Object.prototype.toString.call(value) === '[object Error]' ||
    (typeof (value as Error).message === 'string' && typeof (value as Error).stack === 'string')
  );
}

/**
 * Any thrown value as `{ name, message, stack? }`. An Error as it is; anything else by what it
 * says of itself, read defensively (getters that throw, objects that reach half the process):
 * an event or error-shaped object (`ws`'s ErrorEvent, a DOMException) by its class and
 * `message`, with the stack of the error it carries; other values as a short inspection.
 */
export function plainError(error: unknown): PlainError {
  try {
    return describeThrown(error);
  } catch {
    // A value whose every read throws (a revoked proxy) still prints.
    return { name: typeof error, message: '[a value that cannot be read]' };
  }
}

function describeThrown(error: unknown): PlainError {
  if (typeof error === 'object' && error !== null && isErrorLike(error)) {
    const e = error as Error & { code?: unknown };
    return {
      name: String(e.name ?? 'Error'),
      message: String(e.message ?? ''),
      ...(typeof e.stack === 'string' && { stack: e.stack }),
      ...(typeof e.code === 'string' && { code: e.code }),
    };
  }
  if (error === null || error === undefined) return { name: String(error), message: '' };
  if (typeof error !== 'object' && typeof error !== 'function')
    return { name: typeof error, message: typeof error === 'string' ? error : safeString(error) };
  const message = read(error, 'message');
  const type = read(error, 'type');
  const inner = read(error, 'error');
  const cause =
    typeof inner === 'object' && inner !== null && isErrorLike(inner) ? plainError(inner) : undefined;
  const kind = constructorName(error);
  return {
    name: kind ?? (typeof type === 'string' && type !== '' ? type : 'Object'),
    message:
      typeof message === 'string'
        ? message
        : cause
          ? `${cause.name}: ${cause.message}`
          : shortInspection(error),
    ...(cause?.stack !== undefined && { stack: cause.stack }),
  };
}

/**
 * `error` as lines for a failure message: `Name: message`, then up to `frames` stack frames,
 * Node's internals and jest-understudy's own (the run that called the agent) left out.
 */
export function errorLines(error: PlainError, frames: number): string[] {
  const head = error.message === '' ? error.name : `${error.name}: ${error.message}`;
  const stack = (error.stack ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at ') && !line.includes('node:internal') && !OWN_FRAME.test(line));
  return [...head.split('\n'), ...stack.slice(0, frames).map((frame) => `    ${frame}`)];
}

const OWN_FRAME = /[\\/]node_modules[\\/]jest-understudy[\\/]/;

function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function constructorName(value: object): string | undefined {
  try {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== '' && name !== 'Object' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** One line, a few hundred characters at most, never calling the value's own code. */
function shortInspection(value: unknown): string {
  try {
    const text = inspect(value, {
      depth: 1,
      breakLength: Number.POSITIVE_INFINITY,
      maxArrayLength: 5,
      maxStringLength: 200,
      customInspect: false,
      getters: false,
    });
    return text.length > 300 ? `${text.slice(0, 299)}…` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export function toPlain(value: unknown, limits: PlainLimits = {}): unknown {
  const maxString = limits.maxString ?? MAX_STRING;
  const maxItems = limits.maxItems ?? Number.POSITIVE_INFINITY;
  const maxKeys = limits.maxKeys ?? Number.POSITIVE_INFINITY;
  const scrub = limits.scrub ?? ((text: string) => text);
  const stack: object[] = [];
  const walk = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case 'string':
        return cutText(v, maxString, scrub);
      case 'number':
        return Number.isFinite(v) ? v : String(v);
      case 'boolean':
        return v;
      case 'undefined':
        return undefined;
      case 'bigint':
        return `${v}n`;
      case 'symbol':
        return v.toString();
      case 'function':
        return `[Function ${(v as { name?: string }).name || 'anonymous'}]`;
    }
    if (v === null) return null;
    const o = v as object;
    if (stack.includes(o)) return '[Circular]';
    if (depth > MAX_DEPTH) return '[…]';
    if (isErrorLike(o)) {
      const err = plainError(o) as PlainError & { cause?: unknown };
      const cause = (o as { cause?: unknown }).cause;
      if (cause !== undefined) {
        stack.push(o);
        err.cause = walk(cause, depth + 1);
        stack.pop();
      }
      return err;
    }
    if (o instanceof Date || Object.prototype.toString.call(o) === '[object Date]') {
      const time = (o as Date).getTime();
      return Number.isNaN(time) ? 'Invalid Date' : (o as Date).toISOString();
    }
    if (Object.prototype.toString.call(o) === '[object RegExp]') return String(o);
    stack.push(o);
    try {
      if (Array.isArray(o)) return cutList(o, maxItems).map((item) => walk(item, depth + 1) ?? null);
      const tag = Object.prototype.toString.call(o);
      if (tag === '[object Map]') {
        const out: Record<string, unknown> = {};
        let n = 0;
        const map = o as Map<unknown, unknown>;
        for (const [k, item] of map) {
          if (n++ === maxKeys) {
            out['…'] = itemsLeftOut(map.size - maxKeys);
            break;
          }
          out[String(k)] = walk(item, depth + 1);
        }
        return out;
      }
      if (tag === '[object Set]')
        return cutList([...(o as Set<unknown>)], maxItems).map((item) => walk(item, depth + 1));
      if (ArrayBuffer.isView(o)) return `[${o.constructor?.name ?? 'TypedArray'} ${o.byteLength} bytes]`;
      if (typeof (o as { asymmetricMatch?: unknown }).asymmetricMatch === 'function') {
        const text = (o as { toString(): string }).toString?.();
        const sample = (o as { sample?: unknown }).sample;
        return sample === undefined ? `<${text}>` : `<${text} ${JSON.stringify(walk(sample, depth + 1))}>`;
      }
      const out: Record<string, unknown> = {};
      const keys = Object.keys(o);
      for (const key of keys.length > maxKeys ? keys.slice(0, maxKeys) : keys) {
        let item: unknown;
        try {
          item = (o as Record<string, unknown>)[key];
        } catch (error) {
          item = `[getter threw: ${plainError(error).message}]`;
        }
        const plain = walk(item, depth + 1);
        if (plain !== undefined) out[key] = plain;
      }
      if (keys.length > maxKeys) out['…'] = itemsLeftOut(keys.length - maxKeys);
      return out;
    } finally {
      stack.pop();
    }
  };
  return walk(value, 0);
}
