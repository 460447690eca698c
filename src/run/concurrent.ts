/**
 * test.concurrent and jest-understudy: a test file has one mock model and one world, and
 * concurrent tests run their bodies at the same time, so they would answer each other's
 * requests, share one call log and reset each other's world. The runner adapter tells which
 * concurrent test the running code belongs to (by async context, `RunnerServices.concurrentTest`);
 * every use of the model, the world or a run there is refused and fails that test (./context.ts).
 */

/** Why a concurrent test's use of jest-understudy (`what`: "made a model call (POST …)") was refused. */
export function concurrentTestMessage(test: string, what: string): string {
  return (
    `jest-understudy: the concurrent test "${test}" (test.concurrent) ${what}, which jest-understudy refuses. ` +
    "A test file has one mock model and one world: concurrent tests would answer each other's requests with " +
    "their fixtures, share understudy.model.calls and reset each other's world, so a test could pass on another " +
    "test's answers. Write it with test() (or it()); to run several agents at once, run them in one test: " +
    'await Promise.all([understudy.run(a), understudy.run(b)]).'
  );
}
