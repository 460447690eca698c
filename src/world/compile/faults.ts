/** Faults: a known operation, a `when` that can match, an error code the operation declares. */
import type { PathSegment } from '../../file-format/json-path';
import { opKey } from '../model';
import type { FaultDef } from '../types';
import type { CheckContext } from './context';
import { checkWhen, declaredCode } from './rules';

export function checkFaults(ctx: CheckContext, faults: FaultDef[], at: PathSegment[]): void {
  faults.forEach((fault, i) => {
    const faultAt = [...at, i];
    const ref = ctx.operation(fault.operation, [...faultAt, 'operation']);
    const op = ref && ctx.compiled.get(opKey(ref.packageId, ref.operationId));
    checkWhen(ctx, fault.when, op, [...faultAt, 'when']);
    if (op && fault.kind === 'error' && fault.code !== undefined)
      declaredCode(ctx, op, fault.code, [...faultAt, 'code']);
  });
}
