import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';
import { TestEnvironment as NodeEnvironment } from 'jest-environment-node';
import { isUnderstudyError, markError } from '../../src/errors';
import { urlOf } from '../../src/fetch-input';
import { credentialVariables, REPLAY_KEYS, SECRETS_REGISTRY } from '../../src/files/secrets';
import { scrubForWriting } from '../../src/files/write';
import { HOST_SERVICES } from '../../src/host-services';
import { inLiveRun, noteLiveTest } from '../../src/nightly/live-calls';
import { ciRefusal, keylessProviderOn, noKeyMessage, realKeys } from '../../src/record/mode';
import { usageFileOf } from '../../src/record/usage';
import { type FailureNote, locate } from '../../src/reporter/cases';
import { BRIDGE_KEY, type Bridge, type Failure, type FileSession } from '../../src/sandbox/bridge';
import type { FileStats, Phase, PlainError, TestEvidence } from '../../src/trace/evidence';
import { plainError } from '../../src/trace/plain';
import { keepCompiledCode } from '../code-cache';
import { codeKey } from '../code-key';
import { failureNote, reportName } from '../failure-note';
import { appendToError, titleTags, toError, traceNote } from '../failures';
import { hostServicesForWorker } from '../host-services';
import { type Containment, contain } from '../network';
import { resolveOptions } from '../options';
import { TraceWriter, traceDirProblem, type WrittenTrace } from '../traces';
import { ConcurrentTests } from './concurrent';
import { keepAsyncContext } from './fake-timers';

/** What the environment reports about its test file (read by the reporter through the test result). */
export interface UnderstudyFileReport extends FileStats {
  /** Absolute paths of the traces written for this file. */
  traces: string[];
  /** What the CI surfaces show of each failed test (`describe › test`). */
  failures: Record<string, FailureNote>;
  /** Where the traces go (the live report is read from there). */
  traceDir: string;
  quarantine: string[];
  history?: { path: string; keep: number; readyAfter: number };
  /** What the file's tests ran, the key of their history (./code-key.ts); present with a history. */
  code?: string;
  /** Tags per test (`describe › test`): the file's docblock tags and the `@tag`s in its titles. */
  tags: Record<string, string[]>;
  /** Why tests were skipped by jest-understudy (`live()`, a tag selection), per test. */
  skipped: Record<string, string>;
  /** `jest.retryTimes(n)` as the file set it (0: no retries). */
  retryTimes: number;
  selectTags: string[];
  rootDir: string;
}

function displayName(test: Circus.TestEntry): string {
  return testName(test).split(' > ').join(' › ');
}

function testName(test: Circus.TestEntry): string {
  const names: string[] = [test.name];
  for (
    let block: Circus.DescribeBlock | undefined = test.parent;
    block && block.name !== 'ROOT_DESCRIBE_BLOCK';
    block = block.parent
  )
    names.unshift(block.name);
  return names.join(' > ');
}

/**
 * One mock model (and world) per test file: Jest's runner adapter. msw and the network guards run
 * here, on the host, where they can patch Node's modules; the sandbox gets a `fetch` that hands
 * provider traffic straight to the session the test file loaded (src/sandbox/runtime.ts), and
 * everything else to msw. Jest's events become what the session is told (the bridge contract,
 * src/sandbox/bridge.ts): the test that starts, is skipped or finishes, the phase that runs.
 */
export default class UnderstudyEnvironment extends NodeEnvironment {
  private readonly bridge: Bridge;
  /** Requests nothing handled, recorded by the network policy, failed at the test's end. */
  private readonly unhandled: Failure[] = [];
  /** The test running now (hooks of beforeAll/afterAll run outside one). */
  private currentTest: string | undefined;
  /** Which part of the test lifecycle runs now. */
  private phase: Phase | undefined;
  private containment: Containment | undefined;
  private readonly envTouched = new Map<string, string | undefined>();
  /** What failed before a test started (beforeAll hooks, the file's top level), charged to the next test that ends. */
  private earlier: Failure[] = [];
  /** test.concurrent tests: jest-understudy refuses them, and each one's failures are its own. */
  private readonly concurrent = new ConcurrentTests();
  private readonly traces: TraceWriter;
  /** Credentials the test file's requests carried (its realm notes them here); no file written holds one. */
  private readonly secrets = new Set<string>();
  /** Errors of the current test, by where they came from (hooks, the test itself, beforeAll). */
  private errorPhases = new Map<unknown, string>();
  private testStartedAt = 0;
  private readonly tags: Record<string, string[]> = {};
  private readonly skipped: Record<string, string> = {};
  private readonly failures: Record<string, FailureNote> = {};
  /** Set at teardown: what the file started and left running must not reach the next file. */
  private closed = false;
  /**
   * Set when the file's tests and hooks are done: a file that has no session by then gets none (Jest
   * refuses a `require` made then, and the session's code loads on first use), so what it still
   * sends is refused.
   */
  private finished = false;
  /** The data files (fixtures, worlds, golden files, cassettes) the test file parsed, with digests of their text. */
  private readonly sources = new Map<string, string>();

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    const project = config.projectConfig;
    const raw = (project.testEnvironmentOptions as Record<string, unknown>)?.understudy;
    this.bridge = {
      options: resolveOptions(raw, context.docblockPragmas, project.rootDir, context.testPath, process.env),
      session: undefined,
      hostRequire: (id) => require(id),
      attach: (session) => this.attach(session),
    };
    (this.global as unknown as Record<symbol, unknown>)[BRIDGE_KEY] = this.bridge;
    (this.global as unknown as Record<symbol, unknown>)[HOST_SERVICES] = hostServicesForWorker(
      (file, digest) => this.sources.set(file, digest),
      { realm: this.getVmContext() ?? undefined },
    );
    (this.global as unknown as Record<symbol, unknown>)[SECRETS_REGISTRY] = this.secrets;
    this.bridge.options.usageFile = usageFileOf(project.rootDir, context.testPath, project.id);
    const { traceDir, rootDir, testPath } = this.bridge.options;
    const problem = traceDirProblem(traceDir, rootDir, testPath);
    if (problem) throw toError('OPTIONS_INVALID', problem);
    this.traces = new TraceWriter(traceDir, rootDir, testPath, () => this.secretsInUse());
    // Fake-timer callbacks keep their async context (runs are told apart by it), and the world
    // clock reads the fake clock before Jest replaces, removes or resets it.
    if (this.fakeTimersModern)
      keepAsyncContext(this.fakeTimersModern, this.global, {
        changing: () => this.bridge.session?.timersChanging(),
      });
  }

  /** A session the test file created (on first need): told where the file is now. */
  private attach(session: FileSession): void {
    this.bridge.session = session;
    if (this.currentTest !== undefined) session.testStarted(this.currentTest);
    if (this.phase !== undefined) session.phaseChanged(this.phase);
  }

  private phaseChanged(phase: Phase | undefined): void {
    this.phase = phase;
    this.bridge.session?.phaseChanged(phase);
  }

  /** What the sandbox knows as credentials besides this process: the requests' and its own env's. */
  private secretsInUse(): string[] {
    const env = this.global.process?.env ?? {};
    return [...this.secrets, ...credentialVariables(env).map((v) => v.value)];
  }

  /**
   * This file's counts and traces, for the reporter. The preset's test runner
   * (environment/jest/test-runner) attaches it to the file's test result as `understudy`.
   */
  understudyReport(): UnderstudyFileReport {
    const stats = this.bridge.session?.fileStats() ?? {
      agentRuns: 0,
      replayed: {},
      operations: 0,
      unmatched: 0,
      staleCassettes: [],
    };
    // Jest keeps every file's result for the whole run: a test-realm object kept there would keep
    // that file's whole sandbox alive, so the report crosses as a host-realm copy.
    const { quarantine, history, selectTags } = this.bridge.options;
    const retryTimes = Number.parseInt(
      String((this.global as unknown as Record<symbol, unknown>)[Symbol.for('RETRY_TIMES')] ?? 0),
      10,
    );
    return structuredClone({
      ...stats,
      traces: [...this.traces.written],
      failures: this.failures,
      traceDir: this.bridge.options.traceDir,
      quarantine,
      ...(history && {
        history,
        code: codeKey(this.bridge.options.rootDir, this.bridge.options.testPath, this.sources),
      }),
      rootDir: this.bridge.options.rootDir,
      tags: this.tags,
      skipped: this.skipped,
      retryTimes: Number.isFinite(retryTimes) ? retryTimes : 0,
      selectTags,
    });
  }

  override async setup(): Promise<void> {
    await super.setup();
    const bridge = this.bridge;
    // Record and live modes reach the real provider: never on CI, never without a key.
    const { mode } = bridge.options;
    const refusal = ciRefusal(mode, `UNDERSTUDY_MODE=${mode}`, process.env);
    if (refusal) throw toError('RECORD_REFUSED', refusal);
    if (
      (mode === 'record' || mode === 'live') &&
      realKeys(this.global.process.env).length === 0 &&
      !keylessProviderOn(bridge.options.providers)
    )
      throw toError('RECORD_KEY_MISSING', noKeyMessage(mode, 'this test file'));
    if (bridge.options.traces !== 'off') this.traces.clean();
    const session = () => bridge.session ?? (this.finished ? undefined : bridge.loadSession?.());
    // Replay never leaves the process: every transport is served, passed (this process's own loopback
    // servers, network.allow) or refused.
    const containment = await contain(
      {
        handle: (request) => session()?.handleRequest(request),
        serves: (origin) => session()?.serves(origin) ?? false,
        acceptSocket: (offer) => session()?.acceptSocket(offer),
        // Handlers are added through the session: none exist before it does.
        handlersAnswer: () => bridge.session?.answersHttp() ?? false,
        fail: (message) => {
          // A concurrent test's refused request is its own; one a run made after it ended, its test's or the file's.
          const concurrent = this.concurrent.current();
          if (concurrent) return concurrent.fail({ code: 'UNHANDLED_REQUEST', message });
          if (bridge.session?.lateFailure('UNHANDLED_REQUEST', message)) return;
          // A client that retries a refused connection says the same thing once.
          if (!this.unhandled.some((f) => f.message === message))
            this.unhandled.push({ code: 'UNHANDLED_REQUEST', message });
        },
      },
      this.global,
      { allow: bridge.options.network.allow },
    );
    this.containment = containment;
    bridge.upstream = (request) => containment.upstream(request);
    bridge.upstreamSocket = (request) => containment.upstreamSocket(request);
    bridge.refusal = (method, url, transport) => containment.refusal(method, url, transport);
    const mswFetch = containment.fetch;
    // Test-realm intrinsics, kept so a call after teardown still gets an error the caller can catch.
    const { Promise: SandboxPromise, TypeError: SandboxTypeError } = this.global;
    const fetch = (input: unknown, init?: unknown) => {
      if (this.closed)
        return SandboxPromise.reject(
          markError(new SandboxTypeError(this.afterTeardown(input)), 'FETCH_AFTER_TEARDOWN'),
        );
      return session()?.handleFetch(input, init) ?? mswFetch(input as RequestInfo, init as RequestInit);
    };
    this.global.fetch = fetch as typeof globalThis.fetch;

    const env = this.global.process.env;
    for (const [names, value] of bridge.options.mode === 'replay' ? REPLAY_KEYS : []) {
      if (names.some((name) => env[name] !== undefined)) continue;
      this.envTouched.set(names[0], undefined);
      env[names[0]] = value;
    }
  }

  /** Why a fetch made after this file's teardown fails. */
  private afterTeardown(input: unknown): string {
    const { rootDir, testPath } = this.bridge.options;
    return (
      `jest-understudy: fetch(${urlOf(input) ?? String(input)}) was called after the test file ` +
      `${relative(rootDir, testPath)} finished, so nothing serves it. Something the file started kept ` +
      'running (an understudy.run or SDK call the test did not await, a stream still being read): await it, ' +
      'or abort it, before the test ends.'
    );
  }

  override async teardown(): Promise<void> {
    this.closed = true;
    await this.containment?.close();
    this.containment = undefined;
    const env = this.global.process?.env;
    if (env) {
      for (const [key, value] of this.envTouched) {
        if (value === undefined) delete env[key];
        else env[key] = value;
      }
    }
    this.envTouched.clear();
    this.bridge.session = undefined;
    delete (this.global as unknown as Record<symbol, unknown>)[BRIDGE_KEY];
    delete (this.global as unknown as Record<symbol, unknown>)[HOST_SERVICES];
    keepCompiledCode();
    await super.teardown();
  }

  /** Fails a test for what its agent may have swallowed: unmatched model calls, unmocked requests. */
  async handleTestEvent(event: Circus.Event, state: Circus.State): Promise<void> {
    const bridge = this.bridge;
    const drain = (): Failure[] => [...(bridge.session?.drainFailures() ?? []), ...this.unhandled.splice(0)];
    switch (event.name) {
      case 'run_start':
        this.tagTests(state.rootDescribeBlock, this.bridge.options.tags);
        if (this.concurrent.wrap(state.rootDescribeBlock, testName))
          bridge.concurrentTest = () => this.concurrent.current();
        break;
      case 'test_start':
        // What failed in beforeAll hooks or at file level is charged to the next test.
        this.earlier.push(
          ...drain().map((f) => ({
            ...f,
            message: `Before this test (in a beforeAll hook or at file level): ${f.message}`,
          })),
        );
        // A concurrent test is not the test running: its body runs beside others, refused by the runtime.
        if (event.test.concurrent) break;
        this.currentTest = testName(event.test);
        bridge.session?.testStarted(this.currentTest);
        this.testStartedAt = performance.now();
        // Errors a test has before it starts come from a failed beforeAll hook.
        this.errorPhases = new Map(event.test.errors.map((e) => [errorOf(e), 'beforeAll']));
        break;
      case 'hook_start':
        this.phaseChanged(event.hook.type);
        break;
      case 'hook_failure':
        this.errorPhases.set(event.error, event.hook.type);
        this.phaseChanged(undefined);
        break;
      case 'hook_success':
      case 'test_fn_success':
        this.phaseChanged(undefined);
        break;
      case 'test_fn_start':
        this.phaseChanged('test');
        break;
      case 'test_fn_failure':
        this.phaseChanged(undefined);
        break;
      case 'test_skip':
        this.currentTest = undefined;
        bridge.session?.testSkipped();
        break;
      case 'test_done': {
        const earlier = this.earlier.splice(0);
        if (event.test.concurrent) {
          // A refusal the body did not catch failed the test already: it is said once.
          const thrown = new Set(event.test.errors.map((e) => (errorOf(e) as Error | undefined)?.message));
          for (const { code, message } of [...earlier, ...this.concurrent.take(event.test)]) {
            const error = toError(code, scrubForWriting(message, this.secretsInUse()));
            if (!thrown.has(error.message)) event.test.errors.push(error);
          }
          break;
        }
        bridge.session?.testFinished();
        const name = this.currentTest ?? testName(event.test);
        this.currentTest = undefined;
        this.phaseChanged(undefined);
        for (const { code, message } of [...earlier, ...drain()]) {
          const error = toError(code, scrubForWriting(message, this.secretsInUse()));
          this.errorPhases.set(error, 'understudy');
          event.test.errors.push(error);
        }
        this.traceTest(event.test, name);
        this.noteLive(event.test, name);
        break;
      }
      case 'run_finish': {
        const fail = ({ code, message }: Failure) =>
          state.unhandledErrors.push(toError(code, scrubForWriting(message, this.secretsInUse())));
        for (const f of drain())
          fail({ ...f, message: `After the last test (in an afterAll hook): ${f.message}` });
        // Record modes write the file's cassette now; every mode notes which fixtures answered.
        try {
          for (const message of (await bridge.session?.fileFinished(failedTests(state.rootDescribeBlock))) ??
            [])
            fail(message);
        } catch (error) {
          fail({
            code: isUnderstudyError(error) ? error.code : 'FILE_FINISH_FAILED',
            message: `jest-understudy could not finish this test file: ${(error as Error)?.message ?? error}`,
          });
        }
        this.finished = true;
        break;
      }
    }
  }

  /**
   * Notes each test's tags and, when the run selects tags (`understudy record --tag`), skips the
   * tests that have none of them before any hook runs; notes why `live()` tests are skipped.
   */
  private tagTests(block: Circus.DescribeBlock, inherited: readonly string[]): void {
    const { selectTags } = this.bridge.options;
    const own = block.name === 'ROOT_DESCRIBE_BLOCK' ? [] : titleTags(block.name);
    const tags = [...new Set([...inherited, ...own])];
    for (const child of block.children) {
      if (child.type === 'describeBlock') {
        this.tagTests(child, tags);
        continue;
      }
      const name = displayName(child);
      const testTags = [...new Set([...tags, ...titleTags(child.name)])];
      if (testTags.length > 0) this.tags[name] = testTags;
      const live = this.bridge.liveSkips?.get(child.fn);
      if (live !== undefined) this.skipped[name] = live;
      else if (selectTags.length > 0 && !testTags.some((t) => selectTags.includes(t))) {
        child.mode = 'skip';
        this.skipped[name] =
          `not tagged ${selectTags.map((t) => `@${t}`).join(' or ')} (UNDERSTUDY_TAGS=${selectTags.join(',')})`;
      }
    }
  }

  /** In a repetition of `understudy live`, notes the test's outcome and trajectory in the run's ledger. */
  private noteLive(test: Circus.TestEntry, name: string): void {
    if (!inLiveRun()) return;
    const { testPath, cassette, traceDir } = this.bridge.options;
    const facts = { file: testPath, test: name, cassette, traceDir };
    const ended = {
      failed: test.errors.length > 0,
      startedAt: this.testStartedAt,
      endedAt: performance.now(),
    };
    noteLiveTest({ ...facts, ...ended }, () => this.bridge.session?.testEvidence());
  }

  /**
   * Writes the test's trace and timeline when the `traces` option asks for it; a failure names them,
   * and is noted for the reporter.
   */
  private traceTest(test: Circus.TestEntry, name: string): void {
    const { traces: mode, rootDir, testPath } = this.bridge.options;
    const runtime = this.bridge.session;
    const failed = test.errors.length > 0;
    const messages = failed ? test.errors.map((entry) => plainError(errorOf(entry)).message) : [];
    let written: WrittenTrace | undefined;
    let evidence: TestEvidence | undefined;
    try {
      if (runtime && failed) evidence = runtime.testEvidence();
      if (mode === 'off' || !runtime || (mode === 'on-failure' && !failed)) return;
      const errors: Array<{ phase: string; error: PlainError }> = test.errors.map((entry) => {
        const error = plainError(errorOf(entry));
        return {
          phase: this.errorPhases.get(errorOf(entry)) ?? 'test',
          error: {
            ...error,
            message: stripVTControlCharacters(error.message),
            stack: error.stack && stripVTControlCharacters(error.stack),
          },
        };
      });
      written = this.traces.write(
        {
          file: relative(rootDir, testPath),
          name,
          status: failed ? 'failed' : 'passed',
          errors,
          startedAt: this.testStartedAt,
          endedAt: performance.now(),
          timeOrigin: performance.timeOrigin,
        },
        evidence ?? runtime.testEvidence(),
      );
      if (failed) {
        const text = traceNote(written);
        if (!appendToError(errorOf(test.errors[0]), text))
          test.errors.push(toError('TRACE_WRITTEN', text.trimStart()));
      }
    } catch (error) {
      // A trace that cannot be written must not hide the test's own result.
      const message = `jest-understudy could not write the trace of this test: ${(error as Error)?.message ?? error}`;
      if (failed) test.errors.push(toError('TRACE_WRITE_FAILED', message));
      else process.stderr.write(`${message}\n`);
    } finally {
      if (failed)
        this.failures[reportName(name)] = failureNote(
          written,
          evidence?.expectation,
          messages,
          this.secretsInUse(),
          // Where `it(…)` was called: Jest keeps that stack on the test for its own messages.
          locate(test.asyncError?.stack, testPath)?.line,
        );
    }
  }
}

type CircusError = Circus.TestEntry['errors'][number];

function failedTests(block: Circus.DescribeBlock): number {
  let failed = 0;
  for (const child of block.children)
    failed += child.type === 'describeBlock' ? failedTests(child) : child.errors.length > 0 ? 1 : 0;
  return failed;
}

const errorOf = (entry: CircusError): unknown => (Array.isArray(entry) ? entry[0] : entry);

export { OptionsError } from '../options';
export type { Phase };
export { UnderstudyEnvironment as TestEnvironment };
