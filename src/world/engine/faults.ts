/** Faults on an operation's normal path: compiled per operation once, fired by count, call number or seeded rate. */
import { engineError } from '../errors';
import { type CompiledOperation, opKey, type WorldDefinition } from '../model';
import type { FaultDef, OperationOutcome, OperationRecord } from '../types';
import { argumentsMatch } from '../values';
import type { EngineSetup } from './contract';
import { declared, fail } from './outcomes';
import { random } from './random';
import type { EngineCore } from './state';

export interface CompiledFault {
  id: string;
  def: FaultDef;
}

/** The scenario's faults (a complete setup) or the world's, by operation key. */
export function faultsByOperation(
  definition: WorldDefinition,
  setup: EngineSetup,
): Map<string, CompiledFault[]> {
  const byOp = new Map<string, CompiledFault[]>();
  const scenario = setup.scenario;
  const faults = scenario?.faults ?? definition.source.faults ?? [];
  const origin = scenario?.faults ? 'scenario' : 'world';
  faults.forEach((def, i) => {
    const key = opKey(def.operation.packageId, def.operation.operationId);
    const list = byOp.get(key) ?? [];
    byOp.set(key, list);
    list.push({ id: def.id ?? `${origin}-fault#${i}`, def });
  });
  return byOp;
}

/**
 * The operation's faults in order: a latency adds its delay and goes on; an error or a
 * timeout is the outcome. Undefined when none answers the call.
 */
export function fireFaults(
  core: EngineCore,
  faults: readonly CompiledFault[],
  op: CompiledOperation,
  record: OperationRecord,
  input: unknown,
  actorId: string,
  delay: (ms: number) => void,
): OperationOutcome | undefined {
  for (const fault of faults) {
    const def = fault.def;
    if (def.when?.actorId !== undefined && def.when.actorId !== actorId) continue;
    if (def.when?.arguments !== undefined && !argumentsMatch(def.when.arguments, input)) continue;
    const counts = core.state.faultCounts.get(fault.id) ?? { calls: 0, fired: 0 };
    core.state.faultCounts.set(fault.id, counts);
    counts.calls++;
    if (def.times !== undefined && counts.fired >= def.times) continue;
    const fires = def.onCalls
      ? def.onCalls.includes(counts.calls)
      : def.rate !== undefined
        ? random(core, `fault:${fault.id}`)() < def.rate
        : true;
    if (!fires) continue;
    counts.fired++;
    record.faults = [...(record.faults ?? []), { id: fault.id, kind: def.kind }];
    if (def.kind === 'latency') delay(def.ms ?? 0);
    else if (def.kind === 'error') return fail(declared(op, def.code!, def.message));
    else {
      delay(def.ms ?? 0);
      return fail(
        engineError('TIMEOUT', def.message ?? `${op.key} timed out${def.ms ? ` after ${def.ms} ms` : ''}`),
      );
    }
  }
  return undefined;
}
