import { badArgument, UnderstudyError } from '../errors';
import { loadFixtureFiles } from '../fixtures/load';
import type { Fixture } from '../fixtures/types';
import { type FixtureSource, toFixtures } from '../model/mock-model';
import { getRuntime } from '../runtime/runtime';
import { executeRun, type RunContext } from './run';
import type { Run } from './types';

export type HarnessFixtures = FixtureSource | string | string[];

export interface AgentHarnessOptions<Input, Output> {
  agent: (input: Input, context: RunContext) => Output | Promise<Output>;
  /** Registered for the harness's lifetime: fixtures, a script(), or fixture file paths. */
  fixtures?: HarnessFixtures;
  timeoutMs?: number;
}

export interface HarnessRunRequest<Input> {
  input: Input;
  /** Appended before this run; they stay until `reset()`. */
  fixtures?: HarnessFixtures;
}

export interface AgentHarness<Input, Output> {
  run(input: Input | HarnessRunRequest<Input>): Promise<Run<Input, Output>>;
  /** Drops fixtures supplied to `run()`; the harness's own fixtures stay. */
  reset(): void;
  /** Drops all of the harness's fixtures; later runs throw. */
  close(): Promise<void>;
  readonly lastRun: Run<Input, Output> | undefined;
}

function fixturesFrom(source: HarnessFixtures, where: string): Fixture[] {
  if (typeof source === 'string') return loadFixtureFiles([source]);
  if (Array.isArray(source) && source.every((s) => typeof s === 'string'))
    return loadFixtureFiles(source as string[]);
  try {
    return toFixtures(source as FixtureSource);
  } catch {
    throw badArgument(where, 'fixtures, a script() builder or fixture file paths', source);
  }
}

function isRunRequest<Input>(value: unknown): value is HarnessRunRequest<Input> {
  return (
    typeof value === 'object' &&
    value !== null &&
    'input' in value &&
    Object.keys(value).every((k) => k === 'input' || k === 'fixtures')
  );
}

let harnessCount = 0;

export function createAgentHarness<Input = string, Output = unknown>(
  options: AgentHarnessOptions<Input, Output>,
): AgentHarness<Input, Output> {
  if (typeof options?.agent !== 'function')
    throw badArgument(
      'createAgentHarness({ agent })',
      'an async function (input, context) => output',
      options?.agent,
    );
  const runtime = getRuntime();
  const id = `harness:${harnessCount++}`;
  const runScope = `${id}:runs`;
  if (options.fixtures !== undefined)
    runtime.model.use(fixturesFrom(options.fixtures, 'createAgentHarness({ fixtures })'), id);
  let closed = false;
  let lastRun: Run<Input, Output> | undefined;

  return {
    async run(request) {
      if (closed)
        throw new UnderstudyError(
          'HARNESS_CLOSED',
          'harness.run(): this harness was closed; create a new one',
        );
      const { input, fixtures } = isRunRequest<Input>(request)
        ? request
        : { input: request as Input, fixtures: undefined };
      if (fixtures !== undefined)
        runtime.model.use(fixturesFrom(fixtures, 'harness.run({ fixtures })'), runScope);
      lastRun = await executeRun(runtime, (ctx) => options.agent(input, ctx), {
        input,
        timeoutMs: options.timeoutMs,
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
  };
}
