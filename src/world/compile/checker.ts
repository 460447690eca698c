/**
 * The checker of a whole world or of one per-test setup: it walks the file in order and hands
 * each part to the checker of its feature (packages and operations, actors, rules, faults,
 * events, criteria); they share one CheckContext, so every finding lands in one list.
 */
import type { PathSegment } from '../../file-format/json-path';
import type { WorldDefinition } from '../model';
import type { ScenarioDef, WorldFile } from '../types';
import { checkActors } from './actors';
import { CheckContext } from './context';
import { checkCriterion } from './criteria';
import { checkEvents } from './events';
import { checkFaults } from './faults';
import { modulePath } from './load-modules';
import { checkPackages } from './operations';
import { checkRules } from './rules';

export class Checker {
  readonly ctx: CheckContext;

  constructor(file: WorldFile, dir: string, existing?: WorldDefinition) {
    this.ctx = new CheckContext(file, dir, existing);
  }

  get findings() {
    return this.ctx.findings;
  }

  checkAll(): void {
    const { ctx } = this;
    const f = ctx.file;
    checkPackages(ctx);
    // Without actors, permissions are off and any actor id is accepted.
    if (f.actors) checkActors(ctx, f.actors);
    f.budgets?.forEach((budget, i) => {
      const at: PathSegment[] = ['budgets', i];
      if (budget.operation) {
        const pkg = ctx.packageId(budget.operation.packageId, [...at, 'operation', 'packageId']);
        if (pkg && budget.operation.operationId !== undefined)
          ctx.operationId(pkg, budget.operation.operationId, [...at, 'operation', 'operationId']);
      }
      if (budget.actorId !== undefined) ctx.actorId(budget.actorId, [...at, 'actorId']);
    });
    for (const [name, def] of Object.entries(f.behaviors ?? {})) {
      if (def.module !== undefined) modulePath(ctx, def.module, ['behaviors', name, 'module']);
    }
    checkRules(ctx, f.toolOverrides ?? [], ['toolOverrides']);
    checkFaults(ctx, f.faults ?? [], ['faults']);
    checkEvents(ctx, f.events ?? [], ['events']);
    for (const [name, scenario] of Object.entries(f.scenarios ?? {}))
      this.scenario(scenario, ['scenarios', name]);
    for (const [name, drill] of Object.entries(f.drills ?? {})) {
      const at: PathSegment[] = ['drills', name];
      if (drill.scenario !== undefined) ctx.scenarioName(drill.scenario, [...at, 'scenario']);
      if (drill.actor !== undefined) ctx.actorId(drill.actor, [...at, 'actor']);
      checkRules(ctx, drill.toolOverrides ?? [], [...at, 'toolOverrides']);
      for (const [i, criterion] of drill.success.entries())
        checkCriterion(ctx, criterion, [...at, 'success', i]);
      if (drill.crash?.afterOperation && drill.crash.atStep !== undefined)
        ctx.add(
          'WORLD_INVALID',
          [...at, 'crash'],
          'a crash comes at one point: give afterOperation or atStep, not both',
        );
      else if (drill.crash?.afterOperation)
        ctx.operation(drill.crash.afterOperation, [...at, 'crash', 'afterOperation']);
    }
  }

  scenario(scenario: ScenarioDef, at: PathSegment[]): void {
    const { ctx } = this;
    for (const id of Object.keys(scenario.state ?? {})) ctx.packageId(id, [...at, 'state', id]);
    checkRules(ctx, scenario.toolOverrides ?? [], [...at, 'toolOverrides']);
    checkFaults(ctx, scenario.faults ?? [], [...at, 'faults']);
    checkEvents(ctx, scenario.events ?? [], [...at, 'events']);
  }
}
