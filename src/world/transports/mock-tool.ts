/**
 * `mockTool(binding, { mode, operation, input, output, idempotencyKey, error })`: a
 * callable to install with `jest.mocked(fn).mockImplementation(…)` or
 * `jest.spyOn(obj, 'm').mockImplementation(…)`. It never calls the real dependency: it
 * maps the native arguments to the operation's input, calls the world through its one door
 * (the same call path as HTTP and MCP), and maps the outcome back: the JSON value (or
 * `output(value)`), or a thrown / rejected ToolMockError (or the native error `error(envelope)` builds,
 * which must build one).
 */
import type { CallResult, ToolCall } from '../engine/engine';
import { engineError, ToolMockError, WorldError } from '../errors';
import { type Binding, internalsOf } from '../handle';
import type { OperationRef, ToolErrorEnvelope } from '../types';

/** `T`, but not a place to infer it from (the callable's parameters come from `input`). */
type Later<T> = [T][T extends unknown ? 0 : never];

export interface MockToolOptions<Args extends unknown[], Out> {
  /** `sync` for a function that returns, `async` for one that returns a Promise. */
  mode: 'sync' | 'async';
  operation: OperationRef;
  /** Native arguments → the operation's input (default: the single object argument). The callable's parameters are inferred from it. */
  input?: (...args: Args) => unknown;
  /** The operation's JSON value → the native return value (default: the value itself). */
  output?: (value: any, ...args: Later<Args>) => Out;
  /** Retries of one logical request reuse a key; distinct requests use distinct keys. */
  idempotencyKey?: (...args: Later<Args>) => string | undefined;
  /** Builds the dependency's native error instead of a ToolMockError. */
  error?: (envelope: ToolErrorEnvelope, ...args: Later<Args>) => unknown;
}

function defaultInput(args: unknown[], where: string): unknown {
  if (args.length === 0) return {};
  const [first] = args;
  if (args.length === 1 && first !== null && typeof first === 'object' && !Array.isArray(first)) return first;
  throw new WorldError(
    'MOCKTOOL_INPUT',
    `${where} was called with ${args.length === 1 ? `a ${Array.isArray(first) ? 'list' : typeof first}` : `${args.length} arguments`}; give mockTool an \`input: (...args) => ({ … })\` that maps them to the operation's input`,
  );
}

export function mockTool<Args extends unknown[] = any[], Out = any>(
  binding: Binding,
  options: MockToolOptions<Args, Out> & { mode: 'sync' },
): (...args: Args) => Out;
export function mockTool<Args extends unknown[] = any[], Out = any>(
  binding: Binding,
  options: MockToolOptions<Args, Out> & { mode: 'async' },
): (...args: Args) => Promise<Out>;
export function mockTool<Args extends unknown[], Out>(
  binding: Binding,
  options: MockToolOptions<Args, Out>,
): (...args: Args) => Out | Promise<Out> {
  const inside = internalsOf(binding, 'mockTool(binding, options)');
  if (options === null || typeof options !== 'object') {
    throw new WorldError(
      'BAD_ARGUMENT',
      'mockTool(binding, options): options must be an object { mode, operation, … }',
    );
  }
  const { mode, operation } = options;
  if (mode !== 'sync' && mode !== 'async') {
    throw new WorldError(
      'BAD_ARGUMENT',
      `mockTool: mode must be "sync" or "async", received ${JSON.stringify(mode)}`,
    );
  }
  if (!operation || typeof operation.packageId !== 'string' || typeof operation.operationId !== 'string') {
    throw new WorldError('BAD_ARGUMENT', 'mockTool: operation must be { packageId, operationId }');
  }
  for (const name of ['input', 'output', 'idempotencyKey', 'error'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw new WorldError('BAD_ARGUMENT', `mockTool: ${name} must be a function`);
  }
  // The operation must exist and be reachable directly: refused now, not at the first call.
  const op = inside.engine().operation(operation.packageId, operation.operationId);
  if (!op.bindings.has('direct')) {
    throw new WorldError(
      'BINDING_UNSUPPORTED',
      `mockTool: package ${JSON.stringify(op.packageId)} has bindings [${[...op.bindings].join(', ')}], not "direct"; add "direct" to its bindings in the world file`,
    );
  }
  const ref: OperationRef = { packageId: op.packageId, operationId: op.operationId };
  const where = `the mockTool for ${op.key}`;

  const { door, via } = inside;
  const expired = () =>
    new ToolMockError(
      engineError(
        'BINDING_EXPIRED',
        `${where} was called after its binding expired (it belonged to ${inside.owner}, which has ended); install the mock again in the current test or drill`,
      ),
      ref,
    );
  /** The operation's call for the native arguments. */
  const callOf = (args: Args): ToolCall => {
    const input = options.input ? options.input(...args) : defaultInput(args, where);
    const idempotencyKey = options.idempotencyKey?.(...args);
    return {
      packageId: ref.packageId,
      operationId: ref.operationId,
      input,
      actorId: binding.actorId,
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    };
  };
  /** The outcome as the native value, or the native error thrown. */
  const answerOf = (result: CallResult, args: Args): Out => {
    if (result.outcome.kind === 'error') {
      const envelope = result.outcome.error;
      if (!options.error) throw new ToolMockError(envelope, ref, result.record?.seq);
      const error = options.error(envelope, ...args);
      // A failed operation must reach the agent as a failure, never as an undefined success.
      if (error === undefined || error === null) {
        const message = `${where}: error(envelope) returned ${String(error)} for a failed call (${envelope.code}); return the native error to throw`;
        // The test fails even if the agent catches what is thrown: the mock, not the agent, is wrong.
        door.fail('MOCKTOOL_ERROR', message);
        throw new WorldError('MOCKTOOL_ERROR', message);
      }
      throw error;
    }
    return options.output ? options.output(result.outcome.value, ...args) : (result.outcome.value as Out);
  };

  // The door decides the rest (../host/door.ts): a sync call of a crashed run throws the crash, an async
  // one never settles; what fails before the call reaches the world is answered through it too.
  if (mode === 'sync') {
    return (...args: Args) => {
      if (binding.expired) {
        door.stopIfCrashed();
        throw expired();
      }
      return answerOf(door.callToolSync(callOf(args), via), args);
    };
  }
  return (...args: Args) => {
    let call: ToolCall;
    try {
      if (binding.expired) throw expired();
      call = callOf(args);
    } catch (error) {
      return door.answer(0, () => {
        throw error;
      });
    }
    return door.callTool(call, via).then((result) => answerOf(result, args));
  };
}
