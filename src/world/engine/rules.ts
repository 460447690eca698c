/**
 * Tool override selection:
 * - scopes rank world → scenario → drill → per-test (later scopes win);
 * - within a scope, later matching rules win;
 * - a higher-scope rule with the same id replaces the lower rule entirely (the lower one is
 *   gone: it is never reached, not even after the replacing rule is used up);
 * - `times` consumed → matching continues with the other rules, then normal behavior;
 * - a rule matches its operation, and optionally an actor and supplied argument values
 *   (each exactly, nested values included; other top-level arguments may differ).
 * Match counts live here, outside any transaction: a one-shot rule stays consumed even
 * when the behavior it led to rolls back.
 */
import { opKey } from '../model';
import type { OverrideOutcome, OverrideScope, ToolOverride } from '../types';
import { argumentsMatch } from '../values';

export const SCOPES: readonly OverrideScope[] = ['world', 'scenario', 'drill', 'test'];

export interface ActiveRule {
  /** The rule's id, or `<scope>#<index>` for a rule without one. */
  id: string;
  scope: OverrideScope;
  /** Unique key for counts: `<scope>:<id>`. */
  countKey: string;
  packageId: string;
  operationId: string;
  rule: ToolOverride;
}

export interface Selected {
  rule: ActiveRule;
  outcome: OverrideOutcome;
  matchCount: number;
}

export class RuleSet {
  /** Per operation, in priority order (first = highest). */
  private readonly byOperation = new Map<string, ActiveRule[]>();
  private counts = new Map<string, number>();

  constructor(scopes: Partial<Record<OverrideScope, readonly ToolOverride[]>>) {
    const active: ActiveRule[] = [];
    const byId = new Map<string, ActiveRule>();
    for (const scope of SCOPES) {
      (scopes[scope] ?? []).forEach((rule, index) => {
        const entry: ActiveRule = {
          id: rule.id ?? `${scope}#${index}`,
          scope,
          countKey: `${scope}:${rule.id ?? `#${index}`}`,
          packageId: rule.operation.packageId,
          operationId: rule.operation.operationId,
          rule,
        };
        if (rule.id !== undefined) {
          const lower = byId.get(rule.id);
          if (lower) active.splice(active.indexOf(lower), 1);
          byId.set(rule.id, entry);
        }
        active.push(entry);
      });
    }
    // `active` is in ascending priority (scope by scope, file order); reversed, the first match wins.
    for (let i = active.length - 1; i >= 0; i--) {
      const entry = active[i];
      const key = opKey(entry.packageId, entry.operationId);
      const list = this.byOperation.get(key) ?? [];
      this.byOperation.set(key, list);
      list.push(entry);
    }
  }

  /** Whether any rule targets the operation (the fast path skips selection otherwise). */
  has(key: string): boolean {
    return this.byOperation.has(key);
  }

  /** Chooses the rule for a call and counts the match. */
  select(key: string, input: unknown, actorId: string): Selected | undefined {
    const list = this.byOperation.get(key);
    if (!list) return undefined;
    for (const entry of list) {
      const { rule } = entry;
      const used = this.counts.get(entry.countKey) ?? 0;
      if (rule.times !== undefined && used >= rule.times) continue;
      if (rule.when?.actorId !== undefined && rule.when.actorId !== actorId) continue;
      if (rule.when?.arguments !== undefined && !argumentsMatch(rule.when.arguments, input)) continue;
      this.counts.set(entry.countKey, used + 1);
      return { rule: entry, outcome: rule.outcome, matchCount: used + 1 };
    }
    return undefined;
  }

  /** Every count back to zero, or only those of rules on the given packages. */
  resetCounts(packages?: ReadonlySet<string>): void {
    if (!packages) {
      this.counts = new Map();
      return;
    }
    for (const list of this.byOperation.values()) {
      for (const entry of list) if (packages.has(entry.packageId)) this.counts.delete(entry.countKey);
    }
  }

  /** The effective rules, highest priority first (for reports). */
  get rules(): ActiveRule[] {
    return [...this.byOperation.values()].flat();
  }
}
