/**
 * A test.concurrent test, as both adapters tell it apart: each concurrent test's body runs in an
 * async context of its own (Jest's adapter wraps its function, Vitest's runs it from `aroundEach`),
 * and the failures the session records while that context is current are that test's.
 */
import type { ConcurrentTest, Failure } from '../src/sandbox/bridge';

/** One concurrent test: the failures its body recorded. */
export class Slot implements ConcurrentTest {
  failures: Failure[] = [];

  constructor(readonly name: string) {}

  fail(failure: Failure): void {
    // A body that keeps calling says the same thing once.
    if (!this.failures.some((f) => f.code === failure.code && f.message === failure.message))
      this.failures.push(failure);
  }
}
