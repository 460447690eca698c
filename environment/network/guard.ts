/** What every transport guard shares: the policy it asks, how it reports, how it patches and restores. */
import type { Target, Verdict } from './policy';

export interface GuardContext {
  decide(target: Target): Verdict;
  /**
   * Records a refusal (the test fails with this message). The caller's error follows once what it
   * returns settles: a worker thread waits until the test's thread has the failure, so an agent
   * that reacts to the error cannot end the test before it is recorded.
   */
  refused(message: string): void | Promise<void>;
  /** A transport as this thread names it (`tls`, or `worker tls` in a worker thread). */
  label(transport: string): string;
}

/** Runs `then` (the caller's error) after the refusal is recorded, never synchronously. */
export function afterRefusal(context: GuardContext, message: string, then: () => void): void {
  const recorded = context.refused(message);
  if (recorded) recorded.then(then, then);
  else process.nextTick(then);
}

/** Carried by every function the guards put in place, so a check can tell a leftover patch. */
export const GUARDED = Symbol.for('jest-understudy.guarded');

/** Replaces `object[key]` and returns what puts the previous value (or its absence) back. */
export function patch<T extends object, K extends keyof T>(
  object: T,
  key: K,
  replace: (previous: T[K]) => T[K],
): () => void {
  const own = Object.hasOwn(object, key);
  const previous = object[key];
  const replacement = replace(previous);
  if (typeof replacement === 'function' && !(replacement as Record<symbol, unknown>)[GUARDED])
    Object.defineProperty(replacement, GUARDED, { value: true });
  object[key] = replacement;
  return () => {
    if (own) object[key] = previous;
    else delete object[key];
  };
}

/** Undoes patches in the reverse order they were made. */
export class Patches {
  private readonly undo: Array<() => void> = [];

  add(restore: () => void): void {
    this.undo.push(restore);
  }

  restore(): void {
    for (const restore of this.undo.splice(0).reverse()) restore();
  }
}
