/**
 * Vitest's runner adapter: what the Jest environment (environment/jest/index.ts) and the preset's setup
 * file do around a test file, done from the setup file the plugin adds (./setup.mts), with Vitest's
 * hooks. It drives the file's session (src/sandbox/runtime.ts) through the runner-adapter contract
 * (`FileSession`, `RunnerServices`: src/sandbox/bridge.ts), exactly as Jest's adapter does.
 *
 * Vitest runs a test file in its worker's own realm (no vm sandbox): the test file, this adapter
 * and the session share one `globalThis` and one module cache (the package is external to Vite,
 * loaded by Node). So the bridge is set on that global, msw and the network guards patch it, and
 * everything this adapter set is undone in its last `afterAll`, before the worker runs its next file.
 * This module takes Vitest's functions as arguments and imports nothing of Vitest itself.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { relative } from 'node:path';
import { matchersByName } from '../../matchers/names';
import { type ErrorCode, isUnderstudyError, markError } from '../../src/errors';
import { urlOf } from '../../src/fetch-input';
import { credentialVariables, REPLAY_KEYS, SECRETS_REGISTRY } from '../../src/files/secrets';
import { scrubForWriting } from '../../src/files/write';
import { HOST_SERVICES } from '../../src/host-services';
import { inLiveRun, noteLiveTest } from '../../src/nightly/live-calls';
import { ciRefusal, keylessProviderOn, noKeyMessage, realKeys } from '../../src/record/mode';
import { replaysCassette } from '../../src/record/paths';
import { usageFileOf } from '../../src/record/usage';
import type { FailureNote } from '../../src/reporter/cases';
import { concurrentTestMessage } from '../../src/run/concurrent';
import {
  BRIDGE_KEY,
  type Bridge,
  type Failure,
  type FileSession,
  type RunnerGlobals,
  SETUP_KEY,
} from '../../src/sandbox/bridge';
import type { Phase, PlainError, TestEvidence } from '../../src/trace/evidence';
import { plainError } from '../../src/trace/plain';
import { keepCompiledCode } from '../code-cache';
import { codeKey } from '../code-key';
import { Slot } from '../concurrent';
import { failureNote, reportName } from '../failure-note';
import { appendToError, toError as errorOf, titleTags, traceNote } from '../failures';
import { hostServicesForWorker } from '../host-services';
import { type Containment, contain } from '../network';
import { resolveOptions } from '../options';
import { TraceWriter, traceDirProblem, type WrittenTrace } from '../traces';
import { withCodeInName } from './coded-name';
import { keepAsyncContextOfVi } from './fake-timers';
import type { ProvidedSession } from './provided';

/** A failure as Vitest gets it: as under Jest, with its code in its name too (./coded-name.ts). */
function toError(code: ErrorCode, message: string): Error {
  return withCodeInName(errorOf(code, message));
}

/** The parts of a Vitest task the session reads. */
export interface TaskLike {
  name: string;
  type: string;
  /** The file's task (a test's), whose `meta` reaches the reporters in Vitest's main process. */
  file?: { meta: Record<string, unknown> };
  concurrent?: boolean;
  suite?: TaskLike;
  tasks?: TaskLike[];
  result?: { state?: string; errors?: unknown[] };
  /** The test's `retry` option (its own, its suite's or the config's): a count, or `{ count }`. */
  retry?: number | { count?: number };
}

/** How many times Vitest retries a test that fails, from its `retry` option. */
const retriesOf = (task: TaskLike): number =>
  typeof task.retry === 'number' ? task.retry : (task.retry?.count ?? 0);

type Hook<A extends unknown[]> = (fn: (...args: A) => unknown) => void;

/** Vitest's functions the session registers itself with (from `vitest` in the setup file). */
export interface VitestApi {
  beforeEach: Hook<[{ task: TaskLike; skip(note?: string): void; onTestFinished(fn: () => unknown): void }]>;
  afterAll: Hook<[]>;
  /** Vitest 4.1 and later: runs a test (its beforeEach hooks too) inside the callback. */
  aroundEach?: (fn: (runTest: () => Promise<void>, context: { task: TaskLike }) => unknown) => void;
  vi: Parameters<typeof keepAsyncContextOfVi>[0];
  /** What `live()` and `describeGoldenTasks` declare tests with. */
  globals: RunnerGlobals;
  expect: { extend(matchers: object): void; getState(): { testPath?: string } };
}

/** `describe > test`, as Jest names a test (the run's and the trace's name). */
export function testName(task: TaskLike): string {
  const names = [task.name];
  for (let suite = task.suite; suite && suite.type === 'suite'; suite = suite.suite)
    names.unshift(suite.name);
  return names.join(' > ');
}

/** A test's tags: the file's docblock tags and the `@tag`s in its and its describes' titles. */
function tagsOf(task: TaskLike, fileTags: readonly string[]): string[] {
  const found = [...fileTags, ...titleTags(task.name)];
  for (let suite = task.suite; suite && suite.type === 'suite'; suite = suite.suite)
    found.push(...titleTags(suite.name));
  return [...new Set(found)];
}

/**
 * The docblock pragmas of the test file (`@understudy-world`…), as Jest reads them. Only the
 * `understudy-` ones are read, so a file that names none does not load the docblock parser, which
 * a Vitest worker would load for every file.
 */
export function pragmasOf(testPath: string): Record<string, string | string[]> {
  const text = readFileSync(testPath, 'utf8');
  if (!text.includes('@understudy-')) return {};
  const { extract, parse } = require('jest-docblock') as typeof import('jest-docblock');
  return parse(extract(text));
}

/** Sets up this test file's adapter and network; its hooks undo it all after the file's last test. */
export async function startSession(api: VitestApi, provided: ProvidedSession | undefined): Promise<void> {
  const g = globalThis as unknown as Record<symbol, unknown>;
  // The worker's previous file whose tests never ran (its import failed) never ran its afterAll
  // hook either; under `isolate: false` its session would still hold the worker's network.
  await (g[UNFINISHED_KEY] as (() => Promise<void>) | undefined)?.();
  const testPath = api.expect.getState().testPath;
  if (!provided || !testPath)
    throw withCodeInName(
      toError(
        'ENVIRONMENT_MISSING',
        "jest-understudy: its Vitest setup file runs without the plugin's settings: add the plugin " +
          "(`plugins: [understudy()]` from 'jest-understudy/vitest') to the Vitest config instead of naming the setup file.",
      ),
    );
  const { root } = provided;
  const options = resolveOptions(provided.options, pragmasOf(testPath), root, testPath, process.env, {
    validated: true,
  });
  options.usageFile = usageFileOf(root, testPath, provided.project);
  const problem = traceDirProblem(options.traceDir, root, testPath);
  if (problem) throw withCodeInName(toError('OPTIONS_INVALID', problem));
  const { mode } = options;
  const refusal = ciRefusal(mode, `UNDERSTUDY_MODE=${mode}`, process.env);
  if (refusal) throw withCodeInName(toError('RECORD_REFUSED', refusal));
  if (
    (mode === 'record' || mode === 'live') &&
    realKeys(process.env).length === 0 &&
    !keylessProviderOn(options.providers)
  )
    throw withCodeInName(toError('RECORD_KEY_MISSING', noKeyMessage(mode, 'this test file')));

  const secrets = new Set<string>();
  /** The data files the test file parsed, with digests of their text (the key of its history). */
  const sources = new Map<string, string>();
  const fileRun = randomUUID();
  const secretsInUse = () => [...secrets, ...credentialVariables(process.env).map((v) => v.value)];
  const traces = new TraceWriter(options.traceDir, root, testPath, secretsInUse);
  if (options.traces !== 'off') traces.clean();
  /** Requests nothing handled, recorded by the network policy, failed at the test's end. */
  const unhandled: Failure[] = [];
  /** The test running now (hooks of beforeAll/afterAll run outside one), and the phase of its lifecycle. */
  let currentTest: string | undefined;
  let phase: Phase | undefined;
  let containment: Containment | undefined;
  const bridge: Bridge = {
    options,
    session: undefined,
    hostRequire: (id) => require(id),
    // The session is created on first need, as under Jest, by the copy of the package the test
    // file imports; it announces itself here and is told where the file is now.
    loadSession: () => realm().loadRuntime(),
    attach: (session: FileSession) => {
      // What it answers with is built on Node's undici: loaded now, in the file's own async
      // context, rather than by an SDK inside a test's run.
      containment?.loadUndici();
      bridge.session = session;
      if (currentTest !== undefined) session.testStarted(currentTest);
      if (phase !== undefined) session.phaseChanged(phase);
    },
    runner: { name: 'vitest', globals: () => api.globals },
  };
  const phaseChanged = (next: Phase | undefined) => {
    phase = next;
    bridge.session?.phaseChanged(next);
  };
  g[BRIDGE_KEY] = bridge;
  g[HOST_SERVICES] = hostServicesForWorker((file, digest) => sources.set(file, digest), { sameRealm: true });
  g[SECRETS_REGISTRY] = secrets;
  g[SETUP_KEY] = true;
  const session = () => bridge.session ?? bridge.loadSession?.();

  /** test.concurrent tests, told apart by async context: jest-understudy refuses them (src/sandbox/concurrent.ts). */
  const concurrent = new AsyncLocalStorage<Slot>();
  const slots = new WeakMap<TaskLike, Slot>();
  bridge.concurrentTest = () => concurrent.getStore();
  const workerFetch = fetchOfWorker(g);
  const fileMark: FileMark = { testPath };
  /** The file whose test started the work running now, when that is not this file: one that ended. */
  const leftover = () => {
    const mark = startedByTest.getStore();
    return mark !== undefined && mark !== fileMark ? mark : undefined;
  };
  const envTouched = new Map<string, string | undefined>();
  let closed = false;
  // Fake-timer callbacks keep their async context (runs are told apart by it), and the world
  // clock reads the fake clock before Vitest replaces, removes or resets it.
  const restoreTimers = keepAsyncContextOfVi(api.vi, { changing: () => bridge.session?.timersChanging() });
  const teardown = async () => {
    if (closed) return;
    closed = true;
    restoreTimers();
    try {
      await containment?.close();
    } finally {
      syncBuiltinESMExports();
      workerFetch.fileEnded((input) => fetchAfterTeardown(input, root, testPath));
      for (const [key, value] of envTouched) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      bridge.session = undefined;
      for (const key of [BRIDGE_KEY, HOST_SERVICES, SECRETS_REGISTRY, SETUP_KEY, SESSION_KEY, UNFINISHED_KEY])
        delete g[key];
      keepCompiledCode();
    }
  };

  try {
    containment = await contain(
      {
        // What a test of a file that has ended left running is not this file's: not answered here.
        handle: (request) => (leftover() ? undefined : session()?.handleRequest(request)),
        serves: (origin) => session()?.serves(origin) ?? false,
        acceptSocket: (offer) => (leftover() ? undefined : session()?.acceptSocket(offer)),
        // Handlers are added through the session: none exist before it does.
        handlersAnswer: () => bridge.session?.answersHttp() ?? false,
        fail: (message) => {
          // Refused, but not this file's failure: a test of a file that has ended made it.
          if (leftover()) return;
          // A concurrent test's refused request is its own.
          const slot = concurrent.getStore();
          if (slot) return slot.fail({ code: 'UNHANDLED_REQUEST', message });
          if (bridge.session?.lateFailure('UNHANDLED_REQUEST', message)) return;
          // A client that retries a refused connection says the same thing once.
          if (!unhandled.some((f) => f.message === message))
            unhandled.push({ code: 'UNHANDLED_REQUEST', message });
        },
      },
      globalThis,
      { allow: options.network.allow },
    );
    const open = containment;
    // An ES module's named imports of core modules (`import { get } from 'node:https'`) are live
    // bindings Node updates only when told: a module a worker's earlier file loaded (`isolate:
    // false`) would keep calling the functions that file's containment put in, and later removed.
    syncBuiltinESMExports();
    bridge.upstream = (request) => open.upstream(request);
    bridge.upstreamSocket = (request) => open.upstreamSocket(request);
    bridge.refusal = (method, url, transport) => open.refusal(method, url, transport);
    const mswFetch = open.fetch;
    workerFetch.fileStarted((input, init) => {
      const ended = leftover();
      if (ended) return fetchAfterTeardown(input, root, ended.testPath);
      return session()?.handleFetch(input, init) ?? mswFetch(input as RequestInfo, init as RequestInit);
    });
    for (const [names, value] of mode === 'replay' ? REPLAY_KEYS : []) {
      if (names.some((name) => process.env[name] !== undefined)) continue;
      envTouched.set(names[0], undefined);
      process.env[names[0]] = value;
    }
    // Registered by name: the test file's matchers (and the bundle they live in) load on the first
    // assertion that uses one, so a file that asserts nothing of an agent never loads them.
    api.expect.extend(
      matchersByName(
        () => realm().lazyMatchers as unknown as Record<string, (...a: unknown[]) => unknown>,
        // Vitest leaves `isNot` undefined on an assertion without `.not`; Jest's is false, which
        // the matchers compare with (a failed expectation noted for the trace and the reporter).
        (runner) => {
          const self = runner as { isNot?: boolean };
          return self.isNot === undefined ? Object.create(self, { isNot: { value: false } }) : self;
        },
      ),
    );
    // A broken fixture source fails the file before its tests, not a request an agent may swallow.
    if (
      options.world !== undefined ||
      options.fixtures.length > 0 ||
      options.handlers !== undefined ||
      replaysCassette(options)
    )
      bridge.loadSession?.();
  } catch (error) {
    await teardown();
    throw error;
  }
  const drain = (): Failure[] => [...(bridge.session?.drainFailures() ?? []), ...unhandled.splice(0)];
  const asError = ({ code, message }: Failure) => toError(code, scrubForWriting(message, secretsInUse()));
  /** What failed before a test started (beforeAll hooks, the file's top level), charged to the next test. */
  const earlier: Failure[] = [];
  let startedAt = 0;
  /** How many of the file's tests failed (record modes keep no cassette of a file with failures). */
  let failed = 0;
  /** Tags per test (`describe › test`), and why jest-understudy skipped tests: for the reporter. */
  const tags: Record<string, string[]> = {};
  const skipped: Record<string, string> = {};
  /** What the CI surfaces show of each failed test (`describe › test`). */
  const failures: Record<string, FailureNote> = {};
  let fileMeta: Record<string, unknown> | undefined;
  /** The most retries a test of the file has: the reporter warns that retries mask the flake rate. */
  let retries = 0;

  api.aroundEach?.((runTest, { task }) => {
    const run = () => {
      if (!task.concurrent) return runTest();
      const slot = new Slot(testName(task));
      slots.set(task, slot);
      return concurrent.run(slot, runTest);
    };
    // Where the worker's next files share this module graph, what a test leaves running carries its
    // file: its requests during a later file are refused there, as a finished Jest file's are.
    return provided.shared ? startedByTest.run(fileMark, run) : run();
  });

  // Vitest's hooks become what the session is told (the bridge contract, src/sandbox/bridge.ts), as
  // Jest's events do in environment/jest/index.ts. This setup file's beforeEach runs before the file's
  // own; the test's `onTestFinished` runs after its afterEach hooks and the teardown of its fixtures
  // (`test.extend`), whatever order the config gives hooks, so the test's phase spans all of them:
  // Vitest tells a setup file nothing of when the test function starts.
  api.beforeEach(({ task, skip, onTestFinished }) => {
    fileMeta ??= task.file?.meta;
    retries = Math.max(retries, retriesOf(task));
    // What failed in beforeAll hooks or at file level is charged to the next test that ends.
    earlier.push(
      ...drain().map((f) => ({
        ...f,
        message: `Before this test (in a beforeAll hook or at file level): ${f.message}`,
      })),
    );
    const name = testName(task);
    const shown = name.split(' > ').join(' › ');
    const testTags = tagsOf(task, options.tags);
    if (testTags.length > 0) tags[shown] = testTags;
    // A run that selects tags (`understudy record --tag`) skips the tests that have none of them.
    const { selectTags } = options;
    if (selectTags.length > 0 && !testTags.some((t) => selectTags.includes(t))) {
      skipped[shown] =
        `not tagged ${selectTags.map((t) => `@${t}`).join(' or ')} (UNDERSTUDY_TAGS=${selectTags.join(',')})`;
      if (!task.concurrent) bridge.session?.testStarted(name);
      bridge.session?.testSkipped();
      skip(skipped[shown]);
      return;
    }
    onTestFinished(() => testEnded(task));
    // A concurrent test is not the test running: its body runs beside others, refused by the session.
    if (task.concurrent) {
      // Without aroundEach (before Vitest 4.1) its body cannot be told apart: it is refused whole.
      if (!api.aroundEach)
        throw toError(
          'CONCURRENT_TEST',
          concurrentTestMessage(testName(task), 'runs in a file that uses jest-understudy'),
        );
      return;
    }
    currentTest = name;
    bridge.session?.testStarted(name);
    phaseChanged('test');
    startedAt = performance.now();
  });

  /** The test's end: what the agent swallowed fails it, and its trace is written. */
  const testEnded = (task: TaskLike) => {
    if (task.concurrent) {
      // A refusal the body did not catch failed the test already: it is said once.
      const thrown = new Set((task.result?.errors ?? []).map((e) => (e as Error | undefined)?.message));
      const slot = slots.get(task);
      const own = [...earlier.splice(0), ...(slot ? slot.failures.splice(0) : [])]
        .map(asError)
        .filter((error) => !thrown.has(error.message));
      for (const error of [...(task.result?.errors ?? []), ...own]) withCodeInName(error);
      throwAll(own);
      return;
    }
    bridge.session?.testFinished();
    const name = currentTest ?? testName(task);
    currentTest = undefined;
    phaseChanged(undefined);
    const ours = [...earlier.splice(0), ...drain()].map(asError);
    const theirs = task.result?.errors ?? [];
    const failedNow = task.result?.state === 'fail' || ours.length > 0;
    if (failedNow) failed++;
    const live = bridge.session;
    const { traces: traceMode } = options;
    const messages = failedNow ? [...theirs, ...ours].map((error) => plainError(error).message) : [];
    let written: WrittenTrace | undefined;
    let evidence: TestEvidence | undefined;
    if (live && traceMode !== 'off' && (traceMode === 'always' || failedNow)) {
      try {
        const errors: Array<{ phase: string; error: PlainError }> = [
          ...theirs.map((error) => ({ phase: 'test', error: plainError(error) })),
          ...ours.map((error) => ({ phase: 'understudy', error: plainError(error) })),
        ];
        evidence = live.testEvidence();
        written = traces.write(
          {
            file: relative(root, testPath),
            name,
            status: failedNow ? 'failed' : 'passed',
            errors,
            startedAt,
            endedAt: performance.now(),
            timeOrigin: performance.timeOrigin,
          },
          evidence,
        );
        if (failedNow) {
          const text = traceNote(written);
          if (!appendToError(theirs[0] ?? ours[0], text))
            ours.push(toError('TRACE_WRITTEN', text.trimStart()));
        }
      } catch (error) {
        const message = `jest-understudy could not write the trace of this test: ${(error as Error)?.message ?? error}`;
        if (failedNow) ours.push(toError('TRACE_WRITE_FAILED', message));
        else process.stderr.write(`${message}\n`);
      }
    }
    if (failedNow) {
      try {
        evidence ??= live?.testEvidence();
      } catch {
        // The note is a courtesy to the reporter; the test's result stands without its expectation.
      }
      failures[reportName(name)] = failureNote(written, evidence?.expectation, messages, secretsInUse());
    }
    // A test that skipped itself (`context.skip()`) did not run: it counts in no pass rate.
    if (inLiveRun() && task.result?.state !== 'skip') {
      const { cassette, traceDir } = options;
      const facts = { file: testPath, test: name, cassette, traceDir, failed: failedNow };
      noteLiveTest({ ...facts, startedAt, endedAt: performance.now() }, () => live?.testEvidence());
    }
    // After the trace: it keeps the errors as both runners hand them over.
    for (const error of [...theirs, ...ours]) withCodeInName(error);
    throwAll(ours);
  };

  /** This file's counts and traces, for the reporter (./reporter's `jest-understudy/vitest/reporter`). */
  const report = () => {
    const stats = bridge.session?.fileStats() ?? {
      agentRuns: 0,
      replayed: {},
      operations: 0,
      unmatched: 0,
      staleCassettes: [],
    };
    const { quarantine, history, selectTags } = options;
    return structuredClone({
      ...stats,
      // This file run's identity in the history: the merge of blob reports (--merge-reports) reports
      // the run again, and its history record must be the one the shard wrote.
      run: fileRun,
      at: new Date().toISOString(),
      traces: [...traces.written],
      failures,
      traceDir: options.traceDir,
      quarantine,
      ...(history && { history, code: codeKey(root, testPath, sources) }),
      rootDir: root,
      tags,
      skipped,
      retryTimes: retries,
      selectTags,
    });
  };

  /** Ends the file's session and undoes the adapter's settings; what finishing it found failing. */
  const finish = async (failedTests: number): Promise<Failure[]> => {
    try {
      return (await bridge.session?.fileFinished(failedTests)) ?? [];
    } catch (error) {
      return [
        {
          code: isUnderstudyError(error) ? error.code : 'FILE_FINISH_FAILED',
          message: `jest-understudy could not finish this test file: ${(error as Error)?.message ?? error}`,
        },
      ];
    } finally {
      if (fileMeta) fileMeta.understudy = report();
      await teardown();
    }
  };

  api.afterAll(async () => {
    const failures: Failure[] = drain().map((f) => ({
      ...f,
      message: `After the last test (in an afterAll hook): ${f.message}`,
    }));
    failures.push(...(await finish(failed)));
    throwAll(failures.map((failure) => withCodeInName(asError(failure))));
  });

  // Where the next file's setup finds this session when its afterAll never ran (the file's import
  // failed). Counted as failed, as Vitest reported it: a record mode keeps no cassette of it; what
  // finishing finds has no test left to fail.
  g[UNFINISHED_KEY] = async () => {
    await finish(1);
  };
}

/** Fails the hook with every error (Vitest reports each of an AggregateError's errors). */
function throwAll(errors: Error[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, errors.map((e) => e.message).join('\n\n'));
}

type FileFetch = (input: unknown, init?: unknown) => Promise<Response>;

/** The worker's `fetch` while a test file runs, and what it answers with between files. */
interface WorkerFetch {
  fileStarted(answer: FileFetch): void;
  fileEnded(answer: FileFetch): void;
}

/** A test file, as the work its tests start carries it (under `isolate: false`). */
interface FileMark {
  testPath: string;
}

/** The test file whose test started the work running now: one per worker, as this module is. */
const startedByTest = new AsyncLocalStorage<FileMark>();

/** Where the worker's fetch is kept from one test file to the next. */
const FETCH_KEY = Symbol.for('jest-understudy.vitest.fetch');

/**
 * The `fetch` the session puts on the worker's global: one function for the whole worker, which
 * answers with the file running now. Under `isolate: false` a worker's files share one module
 * graph, so an SDK client that a module made in an earlier file (and the `fetch` it took then)
 * serves the later files too; a function of the first file's would refuse them all after its end.
 * The worker's own fetch is back on the global between files.
 */
function fetchOfWorker(g: Record<symbol, unknown>): WorkerFetch {
  const kept = g[FETCH_KEY] as WorkerFetch | undefined;
  if (kept) return kept;
  const own = globalThis.fetch;
  let answer: FileFetch | undefined;
  const ours = ((input: unknown, init?: unknown) =>
    answer ? answer(input, init) : own(input as RequestInfo, init as RequestInit)) as typeof fetch;
  const made: WorkerFetch = {
    fileStarted(next) {
      answer = next;
      globalThis.fetch = ours;
    },
    fileEnded(next) {
      answer = next;
      globalThis.fetch = own;
    },
  };
  g[FETCH_KEY] = made;
  return made;
}

/** What ends the running file's session, until its last afterAll hook has. */
const UNFINISHED_KEY = Symbol.for('jest-understudy.vitest.unfinished');

/** Where `loadRuntime` keeps the file's session (src/sandbox/runtime.ts). */
const SESSION_KEY = Symbol.for('jest-understudy.runtime');

/** The runtime and matchers of the package entry the test file imports (./realm.ts). */
const realm = () => require('./realm') as typeof import('./realm');

/** A fetch made after the test file at `testPath` finished: refused, saying why. */
function fetchAfterTeardown(input: unknown, root: string, testPath: string): Promise<never> {
  const message =
    `jest-understudy: fetch(${urlOf(input) ?? String(input)}) was called after the test file ` +
    `${relative(root, testPath)} finished, so nothing serves it. Something the file started kept ` +
    'running (an understudy.run or SDK call the test did not await, a stream still being read): await it, ' +
    'or abort it, before the test ends.';
  return Promise.reject(markError(new TypeError(message), 'FETCH_AFTER_TEARDOWN'));
}
