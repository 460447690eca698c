import type { MatchKeys } from '../conversation';
import { isChatFixture } from '../fixtures/kinds';
import type { Fixture } from '../fixtures/types';
import { type Candidate, type CompiledMatch, compileMatch, contentMatches, selectByTurnIndex } from './match';
import { SubstringIndex } from './substring-index';

/** Who registered a fixture: it is dropped when that owner is cleared. */
export type Scope = string;

export interface Entry extends Candidate {
  scope: Scope;
  /** Fixtures with the same match fields but sequenceIndex share this key and one serve count. */
  shape: string;
}

export interface Selection {
  entry: Entry;
  turnIndexRelaxed: boolean;
}

/**
 * The registered fixtures in registration order, indexed so selection touches only
 * fixtures whose literal userMessage occurs in the request, plus the few without one.
 */
export class FixtureStore {
  private entries: Entry[] = [];
  private nextOrder = 0;
  private index: SubstringIndex<Entry> | null = null;
  private unkeyed: Entry[] = [];
  /** Serves per match shape: `sequenceIndex` n answers the request after n serves of its shape. */
  private readonly served = new Map<string, number>();

  add(fixtures: readonly Fixture[], scope: Scope): void {
    for (const fixture of fixtures) {
      // aimock files may carry embedding/image/audio fixtures: they load, but never answer chat.
      if (!isChatFixture(fixture)) continue;
      const compiled: CompiledMatch = compileMatch(fixture.match ?? {});
      const { sequenceIndex: _, ...shape } = fixture.match ?? {};
      this.entries.push({ order: this.nextOrder++, fixture, compiled, scope, shape: shapeKey(shape) });
    }
    this.index = null;
  }

  clear(predicate: (scope: Scope) => boolean = () => true): void {
    this.entries = this.entries.filter((e) => !predicate(e.scope));
    this.index = null;
  }

  /** Forgets how often each shape was served (sequences start again). */
  resetCounts(): void {
    this.served.clear();
  }

  servedCount(entry: Entry): number {
    return this.served.get(entry.shape) ?? 0;
  }

  get all(): readonly Entry[] {
    return this.entries;
  }

  get size(): number {
    return this.entries.length;
  }

  private ensureIndex(): SubstringIndex<Entry> {
    if (this.index) return this.index;
    const index = new SubstringIndex<Entry>();
    const unkeyed: Entry[] = [];
    for (const e of this.entries) {
      if (e.compiled.userLiteral !== null) index.add(e.compiled.userLiteral, e);
      else unkeyed.push(e);
    }
    this.index = index;
    this.unkeyed = unkeyed;
    return index;
  }

  /** Fixtures that could match: the index's hits and every fixture it cannot key, in registration order. */
  private candidatesFor(keys: MatchKeys): Entry[] {
    const index = this.ensureIndex();
    const out = this.unkeyed.slice();
    if (keys.userMessage !== null) index.search(keys.userMessage, (e) => out.push(e));
    if (out.length > this.unkeyed.length) out.sort((a, b) => a.order - b.order);
    return out;
  }

  select(keys: MatchKeys, strictTurnIndex: boolean): Selection | undefined {
    const matched: Entry[] = [];
    for (const e of this.candidatesFor(keys)) {
      if (!contentMatches(e.compiled, keys)) continue;
      if (e.compiled.sequenceIndex !== undefined && this.servedCount(e) !== e.compiled.sequenceIndex)
        continue;
      if (strictTurnIndex && e.compiled.turnIndex !== undefined && e.compiled.turnIndex !== keys.turnIndex)
        continue;
      matched.push(e);
    }
    if (matched.length === 0) return undefined;
    const entry = selectByTurnIndex(matched, keys.turnIndex);
    this.served.set(entry.shape, this.servedCount(entry) + 1);
    const t = entry.compiled.turnIndex;
    return { entry, turnIndexRelaxed: t !== undefined && t !== keys.turnIndex };
  }
}

function shapeKey(match: object): string {
  return JSON.stringify(match, (_k, v) => (v instanceof RegExp ? { regex: v.source, flags: v.flags } : v));
}
