import { AsyncLocalStorage } from 'node:async_hooks';
import type { ErrorCode } from '../errors';

/**
 * Whom calls and their failures belong to: one test of the file while it runs, or the file
 * itself (beforeAll/afterAll hooks, the file's top level). A test's owner ends with the test, so
 * a call of its that arrives later is told apart from the calls of the test running then.
 */
export class Owner {
  ended = false;

  /** `test`: the test's name; undefined for the file. */
  constructor(readonly test: string | undefined) {}

  /** How messages name it: `the test "refunds an order"`, or `the test file`. */
  get label(): string {
    return this.test === undefined
      ? 'the test file (a beforeAll/afterAll hook or its top level)'
      : `the test "${this.test}"`;
  }
}

/** What a run scope needs of the file's context (src/run/context.ts). */
export interface ScopeDeps {
  /** The owner of the code running now: the test running, else the file. */
  owner(): Owner;
  /** Fails `owner`'s test while it runs, else the file (never the test running by then). */
  failOwner(owner: Owner, code: ErrorCode, message: string): void;
  /** Fails the test running now (or the file, outside tests). */
  fail(code: ErrorCode, message: string): void;
}

/** The run a call belongs to (none, outside every run), or why it belongs to no run and is refused. */
export type Claim<Recorder> =
  | { run: Recorder | undefined; refused?: undefined }
  | { refused: string; run?: undefined };

/** What a token names; see `RunScope.ofToken`. */
export type TokenState<Recorder> =
  | { state: 'active'; recorder: Recorder }
  | { state: 'test'; owner: Owner }
  | { state: 'ended'; owner: Owner; of: 'run' | 'test' }
  | { state: 'unknown' };

interface RunInfo {
  readonly owner: Owner;
  ended: boolean;
  /** A run that crashed: its agent is cut off on purpose, and what it still sends is held, not refused. */
  cut: boolean;
}

/**
 * Which run a model call or world operation belongs to. Runs are told apart by async
 * context, however deep or concurrent the agent's calls. Work that arrives without one
 * (a library that queued it outside the agent's context) belongs to the run when exactly
 * one is active; with several active, guessing could credit one run with another's tool
 * calls, so the test fails instead.
 *
 * A call made in the context of a run that has ended (a timer the agent left behind,
 * background work it did not await), or of a run whose test has ended, belongs to no run:
 * it is refused, and fails the test that made the run while that test runs, else the file.
 */
export class RunScope<Recorder extends object> {
  private readonly storage = new AsyncLocalStorage<Recorder>();
  private readonly active = new Set<Recorder>();
  private readonly infos = new WeakMap<Recorder, RunInfo>();
  /**
   * Tokens, for calls that come back over a served port (another process has no async context):
   * the token is in the base URL the child was given. A run's token names the run; a test's (the
   * URLs read in a test, outside its runs) names the test. Tokens are never reused in a file, so a
   * late call of an ended run or test is told apart from the calls going on now.
   */
  private readonly tokens = new WeakMap<object, string>();
  private readonly byToken = new Map<string, { run: WeakRef<Recorder>; info: RunInfo } | { owner: Owner }>();
  private issued = 0;

  constructor(private readonly deps: ScopeDeps) {}

  /** Runs `fn` as the run `recorder`; it stays active until `end(recorder)`. */
  run<T>(recorder: Recorder, fn: () => T): T {
    this.active.add(recorder);
    this.infos.set(recorder, { owner: this.deps.owner(), ended: false, cut: false });
    return this.storage.run(recorder, fn);
  }

  /** The run is over; `cut`: it crashed, and calls its agent still makes are held rather than refused. */
  end(recorder: Recorder, cut = false): void {
    this.active.delete(recorder);
    const info = this.infos.get(recorder);
    if (info) {
      info.ended = true;
      info.cut = cut;
    }
  }

  /**
   * The token of the run the current code belongs to, else of the test running (outside its
   * runs), issued on first need; undefined outside tests and runs.
   */
  currentToken(): string | undefined {
    const recorder = this.storage.getStore();
    if (recorder) {
      let token = this.tokens.get(recorder);
      const info = this.infos.get(recorder);
      if (!token && info) {
        token = `r${++this.issued}`;
        this.tokens.set(recorder, token);
        this.byToken.set(token, { run: new WeakRef(recorder), info });
      }
      return token;
    }
    const owner = this.deps.owner();
    if (owner.test === undefined || owner.ended) return undefined;
    let token = this.tokens.get(owner);
    if (!token) {
      token = `t${++this.issued}`;
      this.tokens.set(owner, token);
      this.byToken.set(token, { owner });
    }
    return token;
  }

  /**
   * What a token names: a run going on (`active`), a test running (`test`), a run or test that has
   * `ended` (or a run a test boundary let go), or `unknown`: a token this file never issued.
   */
  ofToken(token: string): TokenState<Recorder> {
    const entry = this.byToken.get(token);
    if (!entry) return { state: 'unknown' };
    if ('owner' in entry)
      return entry.owner.ended
        ? { state: 'ended', owner: entry.owner, of: 'test' }
        : { state: 'test', owner: entry.owner };
    const recorder = entry.run.deref();
    return recorder && this.active.has(recorder)
      ? { state: 'active', recorder }
      : { state: 'ended', owner: entry.info.owner, of: 'run' };
  }

  /** Fails `owner`'s test while it runs, else the file: for a call that came back for an ended run or test. */
  failLate(owner: Owner, message: string): void {
    this.deps.failOwner(owner, 'RUN_ENDED', message);
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
   * As `claim`, for work that is answered whatever run it belongs to (a request the test's own
   * msw handlers answered): a late one fails as `claim` says, and is credited to no run.
   */
  attribute(what: () => string): Recorder | undefined {
    return this.claim(what).run;
  }

  /**
   * The run a call belongs to: its async context's, else the only active run. Fails the test when
   * the context names no run while several are active. A call in the context of a run that has
   * ended, or whose test has ended, is refused: it fails the run's test while that test runs, else
   * the file. `what` names the call, e.g. "a model call (POST https://…)".
   */
  claim(what: () => string): Claim<Recorder> {
    const own = this.storage.getStore();
    if (own) {
      const refused = this.refuseLate(own, what);
      return refused === undefined ? { run: own } : { refused };
    }
    if (this.active.size > 1)
      this.deps.fail(
        'RUN_UNATTRIBUTED',
        `jest-understudy: ${what()} arrived outside the async context of every run while ${this.active.size} runs ` +
          'were active, so it cannot be credited to the run that made it (its modelCalls and toolCalls would be ' +
          'wrong). Make the call from inside the agent function rather than from work a library queued before ' +
          'the run started, or run the agents one after another.',
      );
    return { run: this.only() };
  }

  /**
   * For work that belongs to no run of its own (an embedding request): refused, and failed as
   * `claim` says, when it was made in the context of a run that has ended; else undefined.
   */
  refuseIfLate(what: () => string): string | undefined {
    const own = this.storage.getStore();
    return own && this.refuseLate(own, what);
  }

  /** The owner of the run the current code belongs to, when that run (or its test) has ended. */
  lateOwner(): Owner | undefined {
    const own = this.storage.getStore();
    const info = own && this.infos.get(own);
    return info && isLate(info) ? info.owner : undefined;
  }

  private refuseLate(own: Recorder, what: () => string): string | undefined {
    const info = this.infos.get(own);
    if (!info || !isLate(info)) return undefined;
    const message = lateMessage(what(), info);
    this.deps.failOwner(info.owner, 'RUN_ENDED', message);
    return message;
  }

  private only(): Recorder | undefined {
    if (this.active.size !== 1) return undefined;
    for (const recorder of this.active) return recorder;
    return undefined;
  }
}

/** A run that has ended, or whose test has: what its context still makes is late (unless it crashed). */
function isLate(info: RunInfo): boolean {
  return !info.cut && (info.ended || info.owner.ended);
}

function lateMessage(what: string, info: RunInfo): string {
  const run = `a run of ${info.owner.label}`;
  const when = info.ended
    ? `after ${run} had ended`
    : `in ${run} after that test had ended (the run was never awaited)`;
  return (
    `jest-understudy: ${what} was made ${when}, so it belongs to no run and nothing checks it; it was refused. ` +
    'Something the agent started kept running after the agent function returned (a timer, a promise it did not ' +
    'await, background work, a server or client it started inside the run and used again later): wait for it ' +
    'inside the agent function, and start what later runs share outside understudy.run().'
  );
}
