import type { EngineSetup } from '../engine/engine';
import type { WorldDefinition } from '../model';
import type { ScenarioDef } from '../types';

/** An engine setup for a scenario: a named one in the scenario scope; an inline one's rules per-test. */
export function scenarioSetup(definition: WorldDefinition, scenario: string | ScenarioDef): EngineSetup {
  if (typeof scenario === 'string') {
    return { scenario: definition.source.scenarios![scenario], scenarioScope: 'scenario' };
  }
  const { toolOverrides, ...rest } = scenario;
  return { scenario: rest, testRules: toolOverrides ?? [] };
}
