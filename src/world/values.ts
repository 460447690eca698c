/**
 * Plain-data helpers the engine runs on every call: copying (the evidence keeps its own
 * copies, made in this realm), equality, subsets, state paths and permission patterns.
 */
import type { PathSegment } from '../file-format/json-path';

// Built-ins read once: in Jest's sandbox every global name lookup goes through the
// context's interceptors, which made a naive clone 20x slower than this one.
const { getPrototypeOf, prototype: OBJECT_PROTOTYPE } = Object;
const isArray = Array.isArray;
const hasOwn = Object.hasOwn;

/** A plain object of any realm (JSON parsed on the host is plain data too; copies are this realm's). */
function isPlainRecord(value: object): boolean {
  const proto = getPrototypeOf(value);
  if (proto === OBJECT_PROTOTYPE || proto === null) return true;
  return (
    getPrototypeOf(proto) === null &&
    typeof proto.constructor === 'function' &&
    proto.constructor.name === 'Object'
  );
}

/** A deep copy of JSON-like data. Other objects (Dates, class instances) are kept as they are. */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  if (!isPlainRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!hasOwn(value, key)) continue;
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = cloneJson(v);
  }
  return out as T;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !isArray(value);

/** JSON equality: key order and `undefined`-valued keys do not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  const arrayA = isArray(a);
  if (arrayA !== isArray(b)) return false;
  if (arrayA) {
    const aa = a as unknown[];
    const bb = b as unknown[];
    if (aa.length !== bb.length) return false;
    for (let i = 0; i < aa.length; i++) if (!deepEqual(aa[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const key in ao) if (hasOwn(ao, key) && !deepEqual(ao[key], bo[key])) return false;
  for (const key in bo) if (hasOwn(bo, key) && !hasOwn(ao, key) && bo[key] !== undefined) return false;
  return true;
}

/**
 * The override/fault rule: every supplied top-level argument equals the input's value
 * exactly (nested objects and arrays included); other top-level arguments may differ.
 */
export function argumentsMatch(expected: Record<string, unknown>, input: unknown): boolean {
  if (!isObject(input)) {
    for (const key in expected) if (hasOwn(expected, key)) return false;
    return true;
  }
  for (const key in expected)
    if (hasOwn(expected, key) && !deepEqual(expected[key], input[key])) return false;
  return true;
}

/**
 * Criteria: `expected` is contained in `actual`. Objects: a deep subset; lists: every
 * expected element is contained in some element; strings: a substring; else equality.
 */
export function contains(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'string' && typeof expected === 'string') return actual.includes(expected);
  if (Array.isArray(actual)) {
    if (Array.isArray(expected)) return expected.every((e) => actual.some((a) => subset(a, e)));
    return actual.some((a) => subset(a, expected));
  }
  return subset(actual, expected);
}

/** A deep subset: objects may have more keys; arrays must have the same length. */
export function subset(actual: unknown, expected: unknown): boolean {
  if (isObject(expected)) {
    if (!isObject(actual)) return false;
    return Object.keys(expected).every((key) => subset(actual[key], expected[key]));
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => subset(actual[i], e))
    );
  }
  return deepEqual(actual, expected);
}

/**
 * Parses a state path: `$.record-store.records.record-1.text`, `$["record-store"].items[0]`.
 * Dotted names may contain anything but `.` and `[` (package ids have dashes).
 */
export function parseStatePath(path: string): PathSegment[] | { error: string } {
  if (!path.startsWith('$'))
    return { error: 'a state path starts with "$", e.g. "$.my-package.items.item-1"' };
  const segments: PathSegment[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      let j = i + 1;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      if (j === i + 1) return { error: `empty name at position ${i + 1}` };
      segments.push(path.slice(i + 1, j));
      i = j;
    } else if (c === '[') {
      const close = path.indexOf(']', i);
      if (close === -1) return { error: `unclosed "[" at position ${i + 1}` };
      const inner = path.slice(i + 1, close).trim();
      if (/^\d+$/.test(inner)) segments.push(Number(inner));
      else if (/^(["']).*\1$/.test(inner)) segments.push(inner.slice(1, -1));
      else return { error: `"[${inner}]" is neither an index nor a quoted name` };
      i = close + 1;
    } else return { error: `unexpected "${c}" at position ${i + 1}` };
  }
  return segments;
}

export function valueAt(
  root: unknown,
  segments: readonly PathSegment[],
): { found: boolean; value?: unknown } {
  let node: unknown = root;
  for (const segment of segments) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return { found: false };
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  return { found: true, value: node };
}

/** `record-store/*`, `*\/records.get`, `*`: `*` matches any run of characters. */
export function patternMatcher(pattern: string): (name: string) => boolean {
  if (pattern === '*') return () => true;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regex = new RegExp(`^${source}$`);
  return (name) => regex.test(name);
}

/** A short, stable text for messages. */
export function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
