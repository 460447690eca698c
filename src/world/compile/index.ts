/**
 * A schema-valid world file → a WorldDefinition the engine runs, or every problem in it.
 * All or nothing: references are checked (an override naming an unknown operation, an
 * error code the operation does not declare, a drill naming an unknown scenario, a
 * behavior module that does not exist…), operation schemas compiled, static override
 * values validated, and only then are behavior modules loaded. Per-test setups
 * (`runDrills({ setup })`) go through the same checks.
 */
import type { PathSegment } from '../../file-format/json-path';
import { type Finding, opKey, type WorldDefinition } from '../model';
import type { BehaviorDef, OperationRef, ScenarioDef, ToolOverride, WorldFile } from '../types';
import { Checker } from './checker';
import { definitionOf } from './definition';
import { loadModules } from './load-modules';
import { checkRules } from './rules';
import { withWorkspaceOperations } from './workspace';

/** Checks and compiles. Returns findings (nothing is half-built) or the definition. */
export function compileWorld(
  given: WorldFile,
  options: { file?: string; dir: string },
): { definition: WorldDefinition } | { findings: Finding[] } {
  const { file, findings } = withWorkspaceOperations(given);
  const checker = new Checker(file, options.dir);
  checker.findings.push(...findings);
  checker.checkAll();
  if (checker.findings.length > 0) return { findings: checker.findings };
  loadModules(checker.ctx);
  if (checker.findings.length > 0) return { findings: checker.findings };
  return { definition: definitionOf(checker.ctx, options.file) };
}

/**
 * Every problem of a schema-valid world, without loading its behavior modules: module paths
 * are resolved but nothing of the user's runs (`understudy validate`).
 */
export function checkWorld(given: WorldFile, options: { dir: string }): Finding[] {
  const { file, findings } = withWorkspaceOperations(given);
  const checker = new Checker(file, options.dir);
  checker.findings.push(...findings);
  checker.checkAll();
  return checker.findings;
}

/** What a per-test setup may reference; checked against a compiled world. */
export interface SetupShape {
  scenario?: string | ScenarioDef;
  toolOverrides?: ToolOverride[];
  tools?: { behaviorOverrides?: Array<{ operation: OperationRef; behavior: BehaviorDef | string }> };
}

export function checkSetup(definition: WorldDefinition, setup: SetupShape): Finding[] {
  const checker = new Checker(definition.source, definition.dir, definition);
  const { ctx } = checker;
  if (typeof setup.scenario === 'string') {
    ctx.scenarioName(setup.scenario, ['scenario']);
  } else if (setup.scenario) {
    checker.scenario(setup.scenario, ['scenario']);
  }
  checkRules(ctx, setup.toolOverrides ?? [], ['toolOverrides']);
  (setup.tools?.behaviorOverrides ?? []).forEach((entry, i) => {
    const at: PathSegment[] = ['tools', 'behaviorOverrides', i];
    const op = ctx.operation(entry.operation, [...at, 'operation']);
    if (!op) return;
    const compiled = definition.operations.get(opKey(op.packageId, op.operationId));
    if (!compiled) return;
    const result = definition.compileBehavior(entry.behavior, compiled, [...at, 'behavior']);
    if ('findings' in result) ctx.findings.push(...result.findings);
  });
  if (ctx.findings.length === 0) loadModules(ctx);
  return ctx.findings;
}
