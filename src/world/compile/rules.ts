/** Tool overrides (rules) and the parts of them faults share: `when` and declared error codes. */
import type { PathSegment } from '../../file-format/json-path';
import { didYouMean } from '../dialect';
import { type CompiledOperation, opKey } from '../model';
import { ajvMessages } from '../schema-messages';
import type { RuleWhen, ToolOverride } from '../types';
import type { CheckContext } from './context';

/** Tool overrides of one scope: unique ids, known operations, declared codes, outputs the schema takes. */
export function checkRules(ctx: CheckContext, rules: ToolOverride[], at: PathSegment[]): void {
  const ids = new Map<string, number>();
  rules.forEach((rule, i) => {
    const ruleAt = [...at, i];
    if (rule.id !== undefined) {
      if (ids.has(rule.id))
        ctx.add(
          'WORLD_INVALID',
          [...ruleAt, 'id'],
          `duplicate rule id ${JSON.stringify(rule.id)} in this scope (also at index ${ids.get(rule.id)})`,
          'ids are unique within a scope; a higher scope replaces a rule by reusing its id',
        );
      else ids.set(rule.id, i);
    }
    const ref = ctx.operation(rule.operation, [...ruleAt, 'operation']);
    const op = ref && ctx.compiled.get(opKey(ref.packageId, ref.operationId));
    checkWhen(ctx, rule.when, op, [...ruleAt, 'when']);
    if (!op) return;
    const outcome = rule.outcome;
    if (outcome.kind === 'error') declaredCode(ctx, op, outcome.code, [...ruleAt, 'outcome', 'code']);
    if (outcome.kind === 'return' && op.validateOutput && !op.validateOutput(outcome.value)) {
      ctx.add(
        'WORLD_INVALID',
        [...ruleAt, 'outcome', 'value'],
        `does not match the output schema of ${op.key}: ${ajvMessages(op.validateOutput.errors, outcome.value).join('; ')}`,
      );
    }
  });
}

/** A rule's or fault's `when`: a known actor, and arguments a closed input can have. */
export function checkWhen(
  ctx: CheckContext,
  when: RuleWhen | undefined,
  op: CompiledOperation | undefined,
  at: PathSegment[],
): void {
  if (!when) return;
  if (when.actorId !== undefined) ctx.actorId(when.actorId, [...at, 'actorId']);
  const props = op?.inputProperties;
  const closed =
    (op?.def.input as { additionalProperties?: unknown } | undefined)?.additionalProperties === false;
  if (props && closed) {
    for (const key of Object.keys(when.arguments ?? {})) {
      if (!Object.hasOwn(props, key))
        ctx.add(
          'WORLD_REFERENCE',
          [...at, 'arguments', key],
          `${op!.key}'s input has no property ${JSON.stringify(key)}, so this rule never matches`,
          didYouMean(key, Object.keys(props), 'input properties'),
        );
    }
  }
}

export function declaredCode(
  ctx: CheckContext,
  op: CompiledOperation,
  code: string,
  at: PathSegment[],
): void {
  if (!op.errors.has(code))
    ctx.add(
      'WORLD_REFERENCE',
      at,
      `${op.key} does not declare the error ${JSON.stringify(code)}`,
      op.errors.size > 0
        ? didYouMean(code, op.errors.keys(), 'errors')
        : 'declare it in the operation\'s "errors"',
    );
}
