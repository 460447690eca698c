/**
 * Tool fakes: an object whose methods are tools (`new FakeK8s()`, an in-memory store). The
 * agent gets a recording proxy of it; every method call the agent makes inside a run lands in
 * the run's `operations` and the scenario world's evidence as an operation of its own
 * (`packageId` the fake's name, `operationId` the method, transport 'fake'), linked to the
 * model's tool call like a world operation. Calls run on the object itself, so a method that
 * calls another (`this.get(id)`) is one call, and calls made outside runs (the test reading
 * the fake afterwards) are not recorded.
 *
 * A method's declared errors are what a fault sweep answers it with; an injected fault never
 * calls the method. Every call inside a run goes through the world's door (src/world/host.ts):
 * the run it belongs to, its latency and a crashed run's silence are decided there, as for every
 * tool call (see src/run/crash.ts).
 */
import { UnderstudyError } from '../errors';
import { toPlain } from '../trace/plain';
import type { WorldEngine } from '../world/engine';
import type { WorldHost } from '../world/host';
import type { DeclaredError, OperationOutcome, ToolErrorEnvelope } from '../world/types';

export interface ToolFakeOptions {
  /**
   * Which methods are tools (default: every method of the object and its classes). The others
   * pass through unrecorded.
   */
  methods?: string[];
  /**
   * The model's tool name(s) for a method, to link its calls to the model's tool calls
   * (default: the method's name and its snake_case form: `lookupOrder` → `lookup_order`).
   */
  toolNames?: Record<string, string | string[]>;
  /** The errors each method may fail with: what a fault sweep answers it with. */
  errors?: Record<string, Array<Pick<DeclaredError, 'code' | 'status' | 'retryable' | 'message'>>>;
  /**
   * Builds the error a method throws for an injected fault (default: a `ToolMockError` with the
   * envelope), e.g. `(envelope) => new ToolError(envelope.message)`.
   */
  error?: (envelope: ToolErrorEnvelope, method: string) => unknown;
}

/** A fake as the builder keeps it: the object (or a factory for a fresh one per run) and its options. */
export interface FakeSpec {
  name: string;
  source: object | (() => object);
  options: ToolFakeOptions;
}

/** What recording a fake's calls needs from the scenario's execution. */
export interface FakeContext {
  /** The scenario's world: its evidence gets the calls. */
  engine: WorldEngine;
  /** The file's world, whose door every call of a fake inside a run goes through. */
  door: WorldHost;
  /** Whether the current code belongs to a run (calls outside runs are not recorded). */
  inRun(): boolean;
  /** Builds the default error of an injected fault. */
  toolError(envelope: ToolErrorEnvelope, name: string, method: string, seq: number): unknown;
}

const RESERVED = new Set(['constructor', 'toString', 'toJSON', 'valueOf', 'then']);

/** The names of an object's methods: own and inherited, up to (not including) Object.prototype. */
export function methodsOf(target: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (RESERVED.has(key) || key.startsWith('_')) continue;
      const d = Object.getOwnPropertyDescriptor(o, key);
      if (d && typeof d.value === 'function') names.add(key);
    }
  }
  return [...names];
}

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** A method's tool names: the ones given, else the method's name and its snake_case form. */
function toolNamesOf(spec: FakeSpec, method: string): string[] {
  const named = spec.options.toolNames?.[method];
  return named === undefined ? [...new Set([method, snake(method)])] : [named].flat();
}

function bad(where: string, message: string): UnderstudyError {
  return new UnderstudyError('BAD_ARGUMENT', `${where}: ${message}`);
}

/** Checks what `withToolFake(name, fake, options)` was given (the instance itself is checked when made). */
export function checkFakeSpec(name: unknown, source: unknown, options: unknown): FakeSpec {
  const where = `withToolFake(${JSON.stringify(name)}, …)`;
  if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(name))
    throw bad(
      'withToolFake(name, fake)',
      `name must be a non-empty string of letters, digits, "_", "." or "-", received ${JSON.stringify(name)}`,
    );
  if ((typeof source !== 'object' && typeof source !== 'function') || source === null)
    throw bad(
      where,
      `fake must be an object whose methods are tools, or a function that makes one, received ${source === null ? 'null' : typeof source}`,
    );
  const o = (options ?? {}) as ToolFakeOptions;
  if (typeof o !== 'object' || Array.isArray(o)) throw bad(where, 'options must be an object');
  for (const key of Object.keys(o))
    if (!['methods', 'toolNames', 'errors', 'error'].includes(key))
      throw bad(
        where,
        `unknown option ${JSON.stringify(key)} (expected methods, toolNames, errors or error)`,
      );
  if (o.methods !== undefined && !(Array.isArray(o.methods) && o.methods.every((m) => typeof m === 'string')))
    throw bad(where, 'options.methods must be a list of method names');
  if (o.error !== undefined && typeof o.error !== 'function')
    throw bad(where, 'options.error must be a function (envelope, method) => error');
  for (const [method, list] of Object.entries(o.errors ?? {})) {
    if (!Array.isArray(list)) throw bad(where, `options.errors.${method} must be a list of { code, status }`);
    list.forEach((e, i) => {
      if (typeof e?.code !== 'string' || e.code === '' || !Number.isInteger(e.status))
        throw bad(
          where,
          `options.errors.${method}[${i}] must be { code: string, status: integer, retryable?, message? }`,
        );
    });
  }
  return { name, source: source as FakeSpec['source'], options: o };
}

/** The fake's object for one run: the instance given, or a fresh one from its factory. */
export function instanceOf(spec: FakeSpec): { instance: object; fresh: boolean } {
  if (typeof spec.source !== 'function') return { instance: spec.source, fresh: false };
  const made = (spec.source as () => unknown)();
  if (typeof made !== 'object' || made === null)
    throw bad(
      `withToolFake(${JSON.stringify(spec.name)}, factory)`,
      `the factory must return an object, it returned ${made === null ? 'null' : typeof made}`,
    );
  return { instance: made, fresh: true };
}

/** The input an operation record shows: a single plain-object argument as is, else the argument list. */
function inputOf(args: unknown[]): unknown {
  const one = args.length === 1 ? args[0] : undefined;
  const plain =
    typeof one === 'object' &&
    one !== null &&
    !Array.isArray(one) &&
    Object.getPrototypeOf(one) === Object.prototype;
  return toPlain(plain ? one : args);
}

function envelopeOf(error: unknown): ToolErrorEnvelope {
  const e = error as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
    status?: unknown;
    retryable?: unknown;
  };
  return {
    code: typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'ERROR',
    message: typeof e?.message === 'string' ? e.message : String(error),
    retryable: e?.retryable === true,
    status: typeof e?.status === 'number' ? e.status : 500,
  };
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === 'object' || typeof v === 'function') &&
  v !== null &&
  typeof (v as { then?: unknown }).then === 'function';

/** A recording proxy of `instance` for one run of the scenario. */
export function recordingFake(spec: FakeSpec, instance: object, ctx: FakeContext): Record<string, unknown> {
  const where = `withToolFake(${JSON.stringify(spec.name)}, …)`;
  const all = methodsOf(instance);
  const methods = spec.options.methods ?? all;
  for (const m of [
    ...methods,
    ...Object.keys(spec.options.errors ?? {}),
    ...Object.keys(spec.options.toolNames ?? {}),
  ])
    if (!all.includes(m))
      throw bad(
        where,
        `the fake has no method ${JSON.stringify(m)} (it has ${all.map((n) => JSON.stringify(n)).join(', ') || 'none'})`,
      );
  const tools = new Set(methods);
  const wrapped = new Map<string, (...args: unknown[]) => unknown>();
  const target = instance as Record<string, unknown>;

  const wrap = (method: string) => {
    const declared = spec.options.errors?.[method] ?? [];
    const toolNames = toolNamesOf(spec, method);
    const fn = target[method] as (...args: unknown[]) => unknown;
    const isAsync = fn.constructor?.name === 'AsyncFunction';
    return function (this: unknown, ...args: unknown[]) {
      if (!ctx.inRun()) return fn.apply(instance, args);
      const startedAt = performance.now();
      const input = inputOf(args);
      const { door } = ctx;
      const log = (outcome: OperationOutcome, faults?: Array<{ id: string; kind: 'error' | 'timeout' }>) =>
        door.logExternal(
          ctx.engine,
          {
            packageId: spec.name,
            operationId: method,
            input,
            transport: 'fake',
            outcome,
            ...(faults && { faults }),
          },
          toolNames,
          startedAt,
        );
      const fault = door.inject({
        packageId: spec.name,
        operationId: method,
        input,
        declared: declared.map((d) => d.code),
        transport: 'fake',
      });
      if (fault) {
        const d = fault.kind === 'error' ? declared.find((e) => e.code === fault.code) : undefined;
        const envelope: ToolErrorEnvelope =
          fault.kind === 'timeout'
            ? {
                code: 'TIMEOUT',
                message: `${spec.name}.${method} timed out (an injected fault)`,
                retryable: true,
                status: 504,
              }
            : {
                code: fault.code,
                message: d?.message ?? fault.code,
                retryable: d?.retryable ?? false,
                status: d?.status ?? 500,
              };
        const record = log({ kind: 'error', error: envelope }, [{ id: 'injected', kind: fault.kind }]);
        const error = spec.options.error
          ? spec.options.error(envelope, method)
          : ctx.toolError(envelope, spec.name, method, record.seq);
        const delayMs = fault.kind === 'timeout' ? fault.ms : 0;
        if (!isAsync && !(delayMs > 0)) throw error;
        return door.answer(delayMs, () => {
          throw error;
        });
      }
      let result: unknown;
      try {
        result = fn.apply(instance, args);
      } catch (error) {
        log({ kind: 'error', error: envelopeOf(error) });
        door.stopIfCrashed();
        throw error;
      }
      if (isThenable(result))
        return door.hold(
          Promise.resolve(result).then(
            (value) => {
              log({ kind: 'ok', value: toPlain(value) });
              return value;
            },
            (error) => {
              log({ kind: 'error', error: envelopeOf(error) });
              throw error;
            },
          ),
        );
      log({ kind: 'ok', value: toPlain(result) });
      // A synchronous method cannot keep its answer from a crashed run: it throws the crash.
      door.stopIfCrashed();
      return result;
    };
  };

  return new Proxy(target, {
    get(obj, key, receiver) {
      if (typeof key !== 'string' || !tools.has(key)) return Reflect.get(obj, key, receiver);
      let w = wrapped.get(key);
      if (!w) {
        w = wrap(key);
        wrapped.set(key, w);
      }
      return w;
    },
  });
}

/** Every tool method of the fakes by tool name, bound to its fake: for a generic tool loop. */
export function toolsOf(
  fakes: ReadonlyArray<{ spec: FakeSpec; proxy: Record<string, unknown>; instance: object }>,
): Record<string, (...args: unknown[]) => unknown> {
  const tools: Record<string, (...args: unknown[]) => unknown> = {};
  for (const { spec, proxy, instance } of fakes) {
    for (const method of spec.options.methods ?? methodsOf(instance)) {
      const fn = (...args: unknown[]) => (proxy[method] as (...a: unknown[]) => unknown)(...args);
      for (const name of toolNamesOf(spec, method)) tools[name] ??= fn;
    }
  }
  return tools;
}
