/**
 * Jest's test.concurrent tests, told apart by async context. A test file has one mock model and one
 * world; concurrent tests run their bodies at the same time (Jest 30.2 and later between their
 * test_start and test_done events, earlier releases before every test), so the runtime refuses
 * them (src/run/concurrent.ts). Each concurrent test's body runs in an async context of its
 * own, which the session reads through the bridge's `concurrentTest`, and the failures it records are that test's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Circus } from '@jest/types';
import type { ConcurrentTest, Failure } from '../../src/sandbox/bridge';
import { Slot } from '../concurrent';

type TestFn = NonNullable<Circus.TestEntry['fn']>;

export class ConcurrentTests {
  private readonly storage = new AsyncLocalStorage<Slot>();
  private readonly slots = new WeakMap<Circus.TestEntry, Slot>();

  /** Runs each concurrent test's body under `block` in a context of its own; whether there was one. */
  wrap(block: Circus.DescribeBlock, nameOf: (test: Circus.TestEntry) => string): boolean {
    let any = false;
    for (const child of block.children) {
      if (child.type === 'describeBlock') {
        any = this.wrap(child, nameOf) || any;
        continue;
      }
      const fn = child.fn;
      // A generator test is run by Jest through co, which a plain wrapper would hide from it.
      if (!child.concurrent || !fn || fn.constructor?.name === 'GeneratorFunction') continue;
      const slot = new Slot(nameOf(child));
      this.slots.set(child, slot);
      const storage = this.storage;
      const wrapped = function (this: unknown, ...args: unknown[]) {
        return storage.run(slot, () => (fn as (...a: unknown[]) => unknown).apply(this, args));
      };
      // Jest reads the arity to tell a test that takes a done callback.
      Object.defineProperty(wrapped, 'length', { value: fn.length });
      child.fn = wrapped as TestFn;
      any = true;
    }
    return any;
  }

  /** The concurrent test whose body the current code belongs to. */
  current(): ConcurrentTest | undefined {
    return this.storage.getStore();
  }

  /** The failures `test`'s body recorded (for a concurrent test), taken. */
  take(test: Circus.TestEntry): Failure[] {
    const slot = this.slots.get(test);
    if (!slot) return [];
    return slot.failures.splice(0);
  }
}
