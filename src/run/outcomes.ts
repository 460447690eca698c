/**
 * A run that ends 'errored' or 'timed_out' fails its test unless the test looked at how it
 * ended, so an agent that throws is never a silent pass.
 *
 * Looking means the test's own explicit read of the run's `error` or `terminalState`: directly
 * (`run.error`, `const { terminalState } = run`), through `toHaveTerminalState`, or an
 * expectation that names the field (`toMatchObject({ terminalState })`, `toHaveProperty('error')`,
 * `expect.objectContaining({ error })`). For a drill, reading the result's or a trial's `verdict`
 * or `reasons` (what `toHavePassedDrill` reads) looks at the trials' runs, since they carry the
 * agent's error.
 *
 * Nothing that merely walks the run looks: the watched fields are not enumerable, so a spread
 * (`{ ...run }`), `Object.keys`, `toEqual` on the whole run and Jest's printing never visit them;
 * `JSON.stringify`, snapshots (`toJSON`) and `util.inspect` show them without noting a read. The
 * product's own reads (the matchers building a message, traces, drills) use `peek`.
 */

import { errorLines, plainError } from '../trace/plain';
import type { Run, TerminalState } from './types';

/** Values behind the watched fields, for reads that are not the test's. */
const hidden = new WeakMap<object, Map<PropertyKey, unknown>>();

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * Turns `fields` of `target` into accessors that call `onRead` (writable, not enumerable, so
 * only a read that names them gets there), and gives `target` a `toJSON` and an inspection
 * that show them without calling `onRead`.
 */
function noteReads<T extends object>(target: T, fields: readonly (keyof T)[], onRead: () => void): T {
  const values = hidden.get(target) ?? new Map<PropertyKey, unknown>();
  for (const field of fields) {
    if (!values.has(field)) values.set(field, target[field]);
    Object.defineProperty(target, field, {
      enumerable: false,
      configurable: true,
      get: () => {
        onRead();
        return values.get(field);
      },
      set: (value: unknown) => {
        values.set(field, value);
      },
    });
  }
  hidden.set(target, values);
  Object.defineProperty(target, 'toJSON', {
    enumerable: false,
    configurable: true,
    value: () => unnoted(target),
  });
  Object.defineProperty(target, INSPECT, {
    enumerable: false,
    configurable: true,
    value: (_depth: number, options: object, inspect: (value: unknown, options: object) => string) =>
      inspect(unnoted(target), options),
  });
  return target;
}

/** A field's value without counting as the test's read. */
export function peek<T extends object, K extends keyof T>(target: T, field: K): T[K] {
  const values = hidden.get(target);
  return (values?.has(field) ? values.get(field) : target[field]) as T[K];
}

/** A shallow copy with every field, the watched ones included, read unnoticed. */
function unnoted<T extends object>(target: T): T {
  const copy: Record<PropertyKey, unknown> = {};
  for (const key of Object.keys(target)) copy[key] = peek(target, key as keyof T);
  for (const [key, value] of hidden.get(target) ?? []) copy[key] = value;
  return copy as T;
}

/** The terminal states a test must look at. */
function mustBeSeen(state: TerminalState): boolean {
  return state === 'errored' || state === 'timed_out';
}

interface Watched {
  run: Run<any, any>;
  seen: boolean;
  /** Made inside a test (checked when it ends) or outside one (checked when the file ends). */
  inTest: boolean;
  what: string;
  hint: string;
}

/** One line: what the user writes to accept the outcome, by the kind of run. */
function hintFor(kind: string | undefined, state: string): string {
  const accept = `To accept it: expect(run).toHaveTerminalState('${state}')`;
  switch (kind) {
    case 'drill':
      return "Check the drill with expect(result).toHavePassedDrill(): it reports the agent's error with the criteria.";
    case 'golden':
      return `To accept it, give the task \`expect: { terminalState: ${state} }\`.`;
    case 'harness':
      return `${accept}, or pass \`expectError: true\` to createAgentHarness() or harness.run({ input, expectError: true }).`;
    default:
      return `${accept}, or understudy.run(fn, { expectError: true }).`;
  }
}

const WHAT: Record<string, string> = {
  harness: 'harness.run()',
  drill: 'a runDrills trial',
  golden: 'a golden task',
};

/** The runs of this file that ended badly, until the test (or file) that made them ends. */
export class OutcomeWatch {
  private watched: Watched[] = [];
  private readonly byRun = new WeakMap<object, Watched>();

  /** Fails the test at its end unless `error` or `terminalState` of `run` is read before. */
  watch(run: Run<any, any>, kind: string | undefined, inTest: boolean): void {
    const state = peek(run, 'terminalState');
    if (!mustBeSeen(state)) return;
    const entry: Watched = {
      run,
      seen: false,
      inTest,
      what: WHAT[kind ?? ''] ?? 'understudy.run()',
      hint: hintFor(kind, state),
    };
    this.watched.push(entry);
    this.byRun.set(run, entry);
    noteReads(run, ['error', 'terminalState'], () => {
      entry.seen = true;
    });
  }

  /** Reading `fields` of `view` counts as looking at every run of `runs` (a drill result). */
  seenThrough<T extends object>(view: T, fields: readonly (keyof T)[], runs: readonly Run<any, any>[]): T {
    const entries = runs.map((r) => this.byRun.get(r)).filter((e) => e !== undefined);
    if (entries.length === 0) return view;
    return noteReads(view, fields, () => {
      for (const e of entries) e.seen = true;
    });
  }

  /** Failure messages for the unseen runs a test made (`inTest`) or the file made outside tests. */
  take(inTest: boolean): string[] {
    const due = this.watched.filter((w) => w.inTest === inTest);
    this.watched = this.watched.filter((w) => w.inTest !== inTest);
    return due.filter((w) => !w.seen).map((w) => describe(w));
  }
}

function describe(w: Watched): string {
  const state = peek(w.run, 'terminalState');
  const how = state === 'timed_out' ? 'timed out' : 'threw';
  return (
    `jest-understudy: the agent of ${w.what} ${how} (terminal state '${state}') and the test never looked at ` +
    `how the run ended:\n\n${indent(errorLines(plainError(peek(w.run, 'error')), 10).join('\n'))}\n\n${w.hint}`
  );
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
