/** The matchers on Vitest's `expect`, for TypeScript: loaded with the plugin's types. */
import type { FaultSweepMatchers } from '../../matchers/handle-faults.js';
import type { TrajectoryMatchers } from '../../matchers/types.js';

// Vitest 5's `Matchers` (Vitest 4 declares it with one type parameter, `Matchers<T = any>`).
declare module 'vitest' {
  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown>
    extends TrajectoryMatchers<R>,
      FaultSweepMatchers<R> {}
}
