import { badArgument, UnderstudyError } from '../errors';
import type { Fixture, RedactHook } from '../fixtures/types';
import { type FixtureSource, toFixtures } from '../model/mock-model';
import { ciRefusal, keylessProviderOn, noKeyMessage, realKeys, type UnderstudyMode } from '../record/mode';
import type { FileContext } from './context';
import { executeRun, type RunContext } from './run';
import type { Run } from './types';

export type HarnessFixtures = FixtureSource | string | string[];

export interface AgentHarnessOptions<Input, Output> {
  agent: (input: Input, context: RunContext) => Output | Promise<Output>;
  /** Registered for the harness's lifetime: fixtures, a script(), or fixture file paths. */
  fixtures?: HarnessFixtures;
  timeoutMs?: number;
  /**
   * The agent may throw or time out: its runs do not fail the test when they do and the test
   * never reads `run.error` or `run.terminalState`. `harness.run({ input, expectError })` sets it per run.
   */
  expectError?: boolean;
  /**
   * Record mode (local only): every model call of this harness's runs goes to the real
   * provider (its key must be set) and `getRecordedFixtures()` turns the latest run into
   * fixtures. No fixtures are registered. Refused when `CI` is set.
   */
  record?: boolean;
  /**
   * Live mode (local only): model calls go to the real provider, no fixtures are registered
   * and nothing is written; runs are still recorded for assertions. Refused when `CI` is set.
   */
  live?: boolean;
  /** Rewrites prompt texts before matching and recording (timestamps, UUIDs): see `understudy.model.normalize`. */
  normalize?: (text: string) => string;
  /** Gets each recorded fixture last, before `getRecordedFixtures()` returns it. */
  redact?: RedactHook;
}

export interface HarnessRunRequest<Input> {
  input: Input;
  /** Appended before this run; they stay until `reset()`. */
  fixtures?: HarnessFixtures;
  /** As the harness's `expectError`, for this run. */
  expectError?: boolean;
}

export interface AgentHarness<Input, Output> {
  run(input: Input | HarnessRunRequest<Input>): Promise<Run<Input, Output>>;
  /** Drops fixtures supplied to `run()`; the harness's own fixtures stay. */
  reset(): void;
  /** Drops all of the harness's fixtures; later runs throw. */
  close(): Promise<void>;
  readonly lastRun: Run<Input, Output> | undefined;
  /**
   * The latest run's provider traffic as fixtures (record mode): keyed by each call's own
   * userMessage / turnIndex / hasToolResult, plus `toolName` / `toolCallId` where two calls
   * would collide; throws naming both calls when nothing tells them apart. Headers are never
   * kept, secrets are scrubbed, then the `redact` hook runs.
   */
  getRecordedFixtures(): Fixture[];
}

/** File paths are loaded (and validated) as files; anything else as fixtures given in memory. */
function fixturesFrom(source: HarnessFixtures, call: string): Fixture[] {
  const load = () => require('../fixtures/load') as typeof import('../fixtures/load');
  if (typeof source === 'string') return load().loadFixtureFiles([source]);
  if (Array.isArray(source) && source.length > 0 && source.every((s) => typeof s === 'string'))
    return load().loadFixtureFiles(source as string[]);
  return toFixtures(source as FixtureSource, { call, root: 'fixtures' });
}

function isRunRequest<Input>(value: unknown): value is HarnessRunRequest<Input> {
  return (
    typeof value === 'object' &&
    value !== null &&
    'input' in value &&
    Object.keys(value).every((k) => k === 'input' || k === 'fixtures' || k === 'expectError')
  );
}

let harnessCount = 0;

/** `createAgentHarness` on the file `getContext` returns (asked for once the options are checked). */
export function createHarness<Input = string, Output = unknown>(
  getContext: () => FileContext,
  options: AgentHarnessOptions<Input, Output>,
): AgentHarness<Input, Output> {
  if (typeof options?.agent !== 'function')
    throw badArgument(
      'createAgentHarness({ agent })',
      'an async function (input, context) => output',
      options?.agent,
    );
  if (options.expectError !== undefined && typeof options.expectError !== 'boolean')
    throw badArgument('createAgentHarness({ expectError })', 'true or false', options.expectError);
  if (options.record && options.live)
    throw badArgument('createAgentHarness({ record, live })', 'record or live, not both', 'both');
  const mode: UnderstudyMode | undefined = options.record ? 'record' : options.live ? 'live' : undefined;
  if (mode) {
    const refusal = ciRefusal(mode, `createAgentHarness({ ${mode}: true })`, process.env);
    if (refusal) throw new UnderstudyError('RECORD_REFUSED', refusal);
  }
  const runtime = getContext();
  if (mode && realKeys(process.env).length === 0 && !keylessProviderOn(runtime.options.providers))
    throw new UnderstudyError(
      'RECORD_KEY_MISSING',
      noKeyMessage(mode, `createAgentHarness({ ${mode}: true })`, process.env),
    );
  if (options.normalize !== undefined) runtime.model.normalize(options.normalize);
  const id = `harness:${harnessCount++}`;
  const runScope = `${id}:runs`;
  // Record and live modes answer from the provider: fixtures would never be consulted.
  if (options.fixtures !== undefined && !mode)
    runtime.model.register(fixturesFrom(options.fixtures, 'createAgentHarness({ fixtures })'), id);
  let closed = false;
  let lastRun: Run<Input, Output> | undefined;

  return {
    async run(request) {
      if (closed)
        throw new UnderstudyError(
          'HARNESS_CLOSED',
          'harness.run(): this harness was closed; create a new one',
        );
      const { input, fixtures, expectError } = isRunRequest<Input>(request)
        ? request
        : { input: request as Input, fixtures: undefined, expectError: undefined };
      if (expectError !== undefined && typeof expectError !== 'boolean')
        throw badArgument('harness.run({ expectError })', 'true or false', expectError);
      if (fixtures !== undefined && !mode)
        runtime.model.register(fixturesFrom(fixtures, 'harness.run({ fixtures })'), runScope);
      lastRun = await executeRun(runtime, (ctx) => options.agent(input, ctx), {
        input,
        timeoutMs: options.timeoutMs,
        kind: 'harness',
        expectError: expectError ?? options.expectError ?? false,
        ...(mode ? { mode } : {}),
      });
      return lastRun;
    },
    reset() {
      runtime.model.clearScope(runScope);
    },
    async close() {
      closed = true;
      runtime.model.clearScope(runScope);
      runtime.model.clearScope(id);
    },
    get lastRun() {
      return lastRun;
    },
    getRecordedFixtures() {
      const where = 'harness.getRecordedFixtures()';
      if (!lastRun)
        throw new UnderstudyError('RECORD_INCOMPLETE', `${where}: no run yet; call harness.run(input) first`);
      const calls = lastRun.modelCalls.map((c) => runtime.recording.recordedOf(c));
      const recorded = calls.filter((c) => c !== undefined);
      if (recorded.length === 0)
        throw new UnderstudyError(
          'RECORD_INCOMPLETE',
          `${where}: the latest run made ${lastRun.modelCalls.length} model call(s) and none went to the provider. ` +
            'Create the harness with `record: true` (or run the tests with UNDERSTUDY_MODE=record).',
        );
      return runtime.recording.fixturesOf(recorded, where, options.redact);
    },
  };
}
