/**
 * An interceptor that patches Node's functions when it starts (msw), started on the first request
 * that needs it rather than with the test file: loading and starting msw costs a worker about as much
 * as the rest of its start-up, and a file whose SDK uses `fetch` is served without it.
 *
 * The guards are in place before it starts, and must stay above it: each guard that holds one of
 * the functions it patches registers a layer, which puts what is beneath its own function back in
 * place while the interceptor starts, then takes what the interceptor put there as its new
 * "beneath" and puts its own function back on top.
 */

/** Puts a guard's functions aside around `start`, and takes the interceptor's in beneath them. */
export type Layer = (start: () => void) => void;

export class LazyInterceptor {
  private readonly layers: Layer[] = [];
  private state: 'idle' | 'started' | 'closed' = 'idle';
  /** Why it could not start: every later request that needs it fails the same way. */
  private failure: { error: unknown } | undefined;

  /** `start` patches Node's functions and the globals (synchronously); it runs at most once. */
  constructor(private readonly startIt: () => void) {}

  get started(): boolean {
    return this.state === 'started';
  }

  /** A guard registers, when it installs, how to move its functions aside. */
  layer(layer: Layer): void {
    this.layers.push(layer);
  }

  /** Starts the interceptor beneath every layer, if it has not started and the file is still running. */
  start(): void {
    if (this.failure) throw this.failure.error;
    if (this.state !== 'idle') return;
    this.state = 'started';
    const run = this.layers.reduceRight<() => void>((inner, layer) => () => layer(inner), this.startIt);
    try {
      run();
    } catch (error) {
      this.state = 'closed';
      this.failure = { error };
      throw error;
    }
  }

  /** From now on it never starts: the file has ended. */
  close(): void {
    if (this.state === 'idle') this.state = 'closed';
  }
}
