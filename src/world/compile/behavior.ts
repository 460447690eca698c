/** An operation's behavior: a built-in whose collection, key and error codes fit, or a module to load. */
import type { PathSegment } from '../../file-format/json-path';
import type { BuiltinDef, CompiledBehavior } from '../behaviors';
import { builtinCodes } from '../behaviors';
import { didYouMean } from '../dialect';
import type { CompiledOperation } from '../model';
import type { BehaviorDef } from '../types';
import type { CheckContext } from './context';
import { modulePath } from './load-modules';

/** A behavior for an operation: built-in checks now, module loading later. */
export function checkBehavior(
  ctx: CheckContext,
  spec: BehaviorDef | string,
  op: CompiledOperation,
  at: PathSegment[],
  closedInput = false,
): { behavior: CompiledBehavior } | { pending: true } | { failed: true } {
  let def: BehaviorDef;
  let defAt = at;
  if (typeof spec === 'string') {
    const named = ctx.file.behaviors?.[spec];
    if (!named) {
      ctx.add(
        'WORLD_REFERENCE',
        at,
        `unknown behavior ${JSON.stringify(spec)}`,
        didYouMean(spec, Object.keys(ctx.file.behaviors ?? {}), 'behaviors (under "behaviors")'),
      );
      return { failed: true };
    }
    def = named;
    defAt = ['behaviors', spec];
  } else def = spec;

  if (def.builtin !== undefined) {
    let ok =
      def.collection === undefined || ctx.collection(op.packageId, def.collection, [...defAt, 'collection']);
    // create with generated keys cannot conflict when the input has no key to give.
    const keyless =
      def.builtin === 'create' &&
      def.generate !== undefined &&
      op.inputProperties !== undefined &&
      !Object.hasOwn(op.inputProperties, def.key ?? 'id');
    for (const code of keyless ? [] : builtinCodes(def)) {
      if (!op.errors.has(code)) {
        ok = false;
        const field = def.builtin === 'create' ? 'conflict' : 'notFound';
        const declared = def[field] !== undefined;
        ctx.add(
          'WORLD_REFERENCE',
          declared ? [...defAt, field] : defAt,
          `the built-in ${def.builtin} fails with ${code} (${def.builtin === 'create' ? 'the key exists' : 'no such record'}), which ${op.key} does not declare`,
          `declare it in the operation's "errors", e.g. { "code": "${code}", "status": ${def.builtin === 'create' ? 409 : 404} }`,
        );
      }
    }
    const key = def.key ?? 'id';
    const props = op.inputProperties;
    if (
      def.builtin !== 'list' &&
      props &&
      !Object.hasOwn(props, key) &&
      !(def.builtin === 'create' && def.generate !== undefined)
    ) {
      ok = false;
      ctx.add(
        'WORLD_REFERENCE',
        [...defAt, def.key !== undefined ? 'key' : 'builtin'],
        `the key field ${JSON.stringify(key)} is not a property of ${op.key}'s input`,
        didYouMean(key, Object.keys(props), 'input properties'),
      );
    }
    for (const [k, field] of (def.filter ?? []).entries()) {
      if (props && closedInput && !Object.hasOwn(props, field)) {
        ok = false;
        ctx.add(
          'WORLD_REFERENCE',
          [...defAt, 'filter', k],
          `${JSON.stringify(field)} is not a property of ${op.key}'s input`,
          didYouMean(field, Object.keys(props), 'input properties'),
        );
      }
    }
    if (def.module !== undefined) {
      ok = false;
      ctx.add('WORLD_INVALID', [...defAt, 'module'], 'a behavior is either a built-in or a module, not both');
    }
    return ok ? { behavior: { kind: 'builtin', def: def as BuiltinDef } } : { failed: true };
  }

  const file = modulePath(ctx, def.module!, [...defAt, 'module']);
  if (!file) return { failed: true };
  const candidates = def.export !== undefined ? [def.export] : [op.operationId, 'default'];
  ctx.pendingModules.push({
    at: [...defAt, def.export !== undefined ? 'export' : 'module'],
    file,
    candidates,
    done: (handler, exportName) => {
      op.behavior = { kind: 'module', handler, file, exportName };
    },
  });
  return { pending: true };
}
