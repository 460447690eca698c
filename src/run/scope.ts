import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which run a model call or world operation belongs to. Runs are told apart by async
 * context, however deep or concurrent the agent's calls. Work that arrives without one
 * (a library that queued it outside the agent's context) belongs to the run when exactly
 * one is active; with several active, guessing could credit one run with another's tool
 * calls, so the test fails instead.
 */
export class RunScope<Recorder extends object> {
  private readonly storage = new AsyncLocalStorage<Recorder>();
  private readonly active = new Set<Recorder>();
  /**
   * Each run's token, for calls that come back over a served port (another process has no async
   * context): the token is in the base URL the run's child was given. Tokens are never reused in a
   * file, so a late call of an ended run is told apart from a call of the run going now.
   */
  private readonly tokens = new WeakMap<Recorder, string>();
  private readonly byToken = new Map<string, WeakRef<Recorder>>();
  private issued = 0;

  constructor(private readonly fail: (message: string) => void) {}

  /** Runs `fn` as the run `recorder`; it stays active until `end(recorder)`. */
  run<T>(recorder: Recorder, fn: () => T): T {
    this.active.add(recorder);
    return this.storage.run(recorder, fn);
  }

  end(recorder: Recorder): void {
    this.active.delete(recorder);
  }

  /** The token of the run the current code belongs to (its async context's only), issued on first need. */
  currentToken(): string | undefined {
    const recorder = this.storage.getStore();
    if (!recorder) return undefined;
    let token = this.tokens.get(recorder);
    if (!token) {
      token = `r${++this.issued}`;
      this.tokens.set(recorder, token);
      this.byToken.set(token, new WeakRef(recorder));
    }
    return token;
  }

  /**
   * The run a token names: `active` while it runs, `ended` once it has (or a test boundary let it
   * go), `unknown` for a token this file never issued.
   */
  ofToken(
    token: string,
  ):
    | { state: 'active'; recorder: Recorder }
    | { state: 'ended'; recorder?: undefined }
    | { state: 'unknown'; recorder?: undefined } {
    const ref = this.byToken.get(token);
    if (!ref) return { state: 'unknown' };
    const recorder = ref.deref();
    return recorder && this.active.has(recorder) ? { state: 'active', recorder } : { state: 'ended' };
  }

  /** Runs `fn` outside every run's async context (a call that came back without a token). */
  outside<T>(fn: () => T): T {
    return this.storage.exit(fn);
  }

  /** Runs `fn` as work of `recorder` (a call that came back with its token), without activating it. */
  within<T>(recorder: Recorder, fn: () => T): T {
    return this.storage.run(recorder, fn);
  }

  /**
   * A test starts or ends: runs still going (never awaited, stuck on timers that are gone)
   * keep the calls made in their context, but no longer take calls that come without one.
   */
  forgetActive(): void {
    this.active.clear();
  }

  /** The run the current code belongs to: its async context's, else the only active run. */
  getStore(): Recorder | undefined {
    return this.storage.getStore() ?? this.only();
  }

  /**
   * As `getStore`, and fails the test when the context names no run while several are
   * active. `what` names the work, e.g. "a model call (POST https://…)".
   */
  attribute(what: () => string): Recorder | undefined {
    const own = this.storage.getStore();
    if (own) return own;
    if (this.active.size > 1)
      this.fail(
        `jest-understudy: ${what()} arrived outside the async context of every run while ${this.active.size} runs ` +
          'were active, so it cannot be credited to the run that made it (its modelCalls and toolCalls would be ' +
          'wrong). Make the call from inside the agent function rather than from work a library queued before ' +
          'the run started, or run the agents one after another.',
      );
    return this.only();
  }

  private only(): Recorder | undefined {
    if (this.active.size !== 1) return undefined;
    for (const recorder of this.active) return recorder;
    return undefined;
  }
}
