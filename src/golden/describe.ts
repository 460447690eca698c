/**
 * `describeGoldenTasks(glob, { agent })`: one Jest test per golden task. Each test
 * registers the task's fixtures, runs the agent on the task's input (a Run, as
 * `understudy.run` makes), then checks the negative cases (tools that must never run,
 * orders that must not occur), the trajectory, the final message and the terminal state
 * with the package's matchers, so failures read (and trace) like hand-written tests.
 */
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { globSync } from 'tinyglobby';
import { badArgument } from '../errors';
import { loadFixtureFiles } from '../fixtures/load';
import { executeRun, type RunContext } from '../run/run';
import type { Run } from '../run/types';
import { namedExpectation } from '../sandbox/expectations';
import { getContext } from '../sandbox/runtime';
import { loadGoldenFile } from './load';
import type { GoldenFile, GoldenStep, GoldenTask } from './types';

export interface GoldenContext extends RunContext {
  /** The task being run (its world and scenario are passed through here). */
  task: GoldenTask;
}

export interface GoldenTaskOptions<Output = unknown> {
  /** Runs the agent on a task's input; as for createAgentHarness, plus the task in the context. */
  agent: (input: any, context: GoldenContext) => Output | Promise<Output>;
  /** Before each task's run: load its world or scenario, seed state… */
  setup?: (task: GoldenTask) => void | Promise<void>;
  /** Extra checks after the task's own, e.g. on your tool fakes' state. */
  verify?: (run: Run<unknown, Output>, task: GoldenTask) => void | Promise<void>;
  /** Default deadline of each run (a task's `timeoutMs` wins). */
  timeoutMs?: number;
  /** The describe block's name for a file (default: the file's name). */
  name?: (file: GoldenFile, relativePath: string) => string;
}

interface JestGlobals {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>, timeout?: number): void;
  expect: ((value: unknown) => any) & Record<string, any>;
}

function stepArg(step: GoldenStep): { name: string; args?: Record<string, unknown> } | string {
  return typeof step === 'string' ? step : step.args === undefined ? { name: step.name } : step;
}

/** Runs one task's checks on its run (exported for tests and custom harnesses). */
export function checkGoldenTask(expect: JestGlobals['expect'], run: Run, task: GoldenTask): void {
  // A failure names the entry of the golden file it comes from.
  const entry = (path: string) => `${path} of task ${task.id}`;
  for (const [i, step] of task.negative.neverCalls.entries())
    namedExpectation(entry(`negative.neverCalls[${i}]`), () => {
      if (typeof step === 'string') expect(run).not.toHaveCalledTool(step);
      else expect(run).not.toHaveCalledTool(step.name, step.args);
    });
  for (const [i, order] of task.negative.forbiddenOrders.entries())
    namedExpectation(entry(`negative.forbiddenOrders[${i}]`), () => {
      expect(run).not.toHaveCalledToolSequence(order.map(stepArg), { mode: 'ordered' });
    });
  const e = task.expect;
  if (e.trajectory)
    expect(run).toHaveCalledToolSequence(e.trajectory.steps.map(stepArg), {
      mode: e.trajectory.mode,
      args: e.trajectory.args,
    });
  if (e.finalMessage !== undefined)
    expect(run).toHaveFinalMessage(
      typeof e.finalMessage === 'string'
        ? e.finalMessage
        : new RegExp(e.finalMessage.regex, e.finalMessage.flags),
    );
  if (e.terminalState !== undefined) expect(run).toHaveTerminalState(e.terminalState);
}

/** The golden files a pattern names, relative to the calling test file's folder. */
export function goldenFilesFor(patterns: string | readonly string[], base: string): string[] {
  const list = typeof patterns === 'string' ? [patterns] : [...patterns];
  const files = new Set<string>();
  for (const p of list) {
    const abs = isAbsolute(p) ? p : resolve(base, p);
    const found = /[*?[{]/.test(p) ? globSync(abs.replace(/\\/g, '/'), { absolute: true }) : [abs];
    if (found.length === 0)
      throw badArgument(
        `describeGoldenTasks(${JSON.stringify(p)})`,
        `a pattern matching golden task files (looked in ${base})`,
        p,
      );
    for (const f of found) files.add(resolve(f));
  }
  return [...files].sort();
}

/**
 * Declares one Jest test per task of the golden files `patterns` names (globs, relative
 * to this test file's folder). Call it at the top level of a test file (or in a describe).
 */
export function describeGoldenTasks<Output = unknown>(
  patterns: string | readonly string[],
  options: GoldenTaskOptions<Output>,
): void {
  if (typeof options?.agent !== 'function')
    throw badArgument(
      'describeGoldenTasks(patterns, { agent })',
      'an async function (input, context) => output',
      options?.agent,
    );
  const runtime = getContext();
  const { describe, it, expect } = require('@jest/globals') as JestGlobals;
  const base = dirname(runtime.options.testPath);
  const rootDir = runtime.options.rootDir;
  for (const path of goldenFilesFor(patterns, base)) {
    const golden = loadGoldenFile(path);
    const rel = relative(rootDir, path);
    describe(options.name?.(golden, rel) ?? basename(path), () => {
      for (const task of golden.tasks) {
        const title = task.description ? `${task.id} — ${task.description}` : task.id;
        it(title, async () => {
          const fixtures = [
            ...task.fixtures,
            ...(task.fixtureFiles.length > 0 ? loadFixtureFiles(task.fixtureFiles) : []),
          ];
          // Registered for this test only (fixtures a test registers are dropped when it ends).
          if (fixtures.length > 0) runtime.model.register(fixtures, 'test');
          await options.setup?.(task);
          const timeoutMs = task.timeoutMs ?? options.timeoutMs;
          const run = await executeRun<unknown, Output>(
            runtime,
            (context) => options.agent(task.input, { ...context, task }),
            { input: task.input, kind: 'golden', ...(timeoutMs !== undefined && { timeoutMs }) },
          );
          checkGoldenTask(expect, run, task);
          await options.verify?.(run, task);
        });
      }
    });
  }
}
