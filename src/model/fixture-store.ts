import { JUDGE_CONTEXT, type MatchKeys } from '../conversation';
import { isChatFixture, isEmbeddingFixture } from '../fixtures/kinds';
import type { Fixture } from '../fixtures/types';
import { type Candidate, type CompiledMatch, compileMatch, contentMatches, selectByTurnIndex } from './match';
import { SubstringIndex } from './substring-index';

/** Who registered a fixture: it is dropped when that owner is cleared. */
export type Scope = string;

export interface Entry extends Candidate {
  scope: Scope;
  /** Fixtures with the same match fields but sequenceIndex share this key and one serve count. */
  shape: string;
  /** The test a cassette fixture was recorded in: that test's own fixtures answer it first. */
  group?: string;
}

export interface Selection {
  entry: Entry;
  turnIndexRelaxed: boolean;
}

/**
 * The registered fixtures in registration order, indexed so selection touches only
 * fixtures whose literal userMessage occurs in the request, plus the few without one.
 */
interface ScopeIndex {
  index: SubstringIndex<Entry>;
  unkeyed: Entry[];
}

export class FixtureStore {
  private entries: Entry[] = [];
  /** aimock's embedding fixtures: they answer embedding requests (src/embeddings), never chat. */
  private embeddingEntries: Array<{ fixture: Fixture; scope: Scope }> = [];
  private nextOrder = 0;
  /** One index per scope: registering or clearing a test's fixtures leaves the file's and config's intact. */
  private readonly indexes = new Map<Scope, ScopeIndex>();
  private scopes = new Set<Scope>();
  /** Scopes kept but not served for now (a test that reset the model does not see the file's fixtures). */
  private muted = new Set<Scope>();
  /** Serves per match shape: `sequenceIndex` n answers the request after n serves of its shape. */
  private readonly served = new Map<string, number>();

  add(fixtures: readonly Fixture[], scope: Scope): void {
    for (const fixture of fixtures) {
      // aimock files may carry embedding/image/audio fixtures: they load, but never answer chat.
      if (!isChatFixture(fixture)) {
        if (isEmbeddingFixture(fixture)) this.embeddingEntries.push({ fixture, scope });
        continue;
      }
      const compiled: CompiledMatch = compileMatch(fixture.match ?? {});
      const { sequenceIndex: _, ...shape } = fixture.match ?? {};
      const group = fixture.metadata?.test;
      this.entries.push({
        order: this.nextOrder++,
        fixture,
        compiled,
        scope,
        shape: shapeKey(shape),
        ...(typeof group === 'string' ? { group } : {}),
      });
    }
    this.scopes.add(scope);
    this.indexes.delete(scope);
  }

  clear(predicate: (scope: Scope) => boolean = () => true): void {
    this.embeddingEntries = this.embeddingEntries.filter((e) => !predicate(e.scope));
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => !predicate(e.scope));
    if (this.entries.length === before) return;
    this.scopes = new Set(this.entries.map((e) => e.scope));
    for (const scope of [...this.indexes.keys()]) if (predicate(scope)) this.indexes.delete(scope);
  }

  /** Stops serving the fixtures of `scope` until `unmuteAll()`, without dropping them. */
  mute(scope: Scope): void {
    this.muted.add(scope);
  }

  unmuteAll(): void {
    this.muted.clear();
  }

  /** Forgets how often each shape was served (sequences start again). */
  resetCounts(): void {
    this.served.clear();
  }

  servedCount(entry: Entry): number {
    return this.served.get(entry.shape) ?? 0;
  }

  /** The fixtures that can answer now, in registration order. */
  get all(): readonly Entry[] {
    return this.muted.size === 0 ? this.entries : this.entries.filter((e) => !this.muted.has(e.scope));
  }

  /** The embedding fixtures that can answer now, in registration order. */
  get embeddings(): Fixture[] {
    return this.embeddingEntries.filter((e) => !this.muted.has(e.scope)).map((e) => e.fixture);
  }

  get size(): number {
    return this.all.length;
  }

  private ensureIndexes(): Map<Scope, ScopeIndex> {
    const missing = new Set<Scope>();
    for (const scope of this.scopes) if (!this.indexes.has(scope)) missing.add(scope);
    if (missing.size > 0) {
      for (const scope of missing)
        this.indexes.set(scope, { index: new SubstringIndex<Entry>(), unkeyed: [] });
      for (const e of this.entries) {
        if (!missing.has(e.scope)) continue;
        const s = this.indexes.get(e.scope) as ScopeIndex;
        if (e.compiled.userLiteral !== null) s.index.add(e.compiled.userLiteral, e);
        else s.unkeyed.push(e);
      }
    }
    return this.indexes;
  }

  /** Fixtures that could match: each scope's index hits and the fixtures it cannot key, in registration order. */
  private candidatesFor(keys: MatchKeys): Entry[] {
    const out: Entry[] = [];
    const indexes = this.ensureIndexes();
    for (const scope of this.scopes) {
      if (this.muted.has(scope)) continue;
      const { index, unkeyed } = indexes.get(scope) as ScopeIndex;
      for (const e of unkeyed) out.push(e);
      if (keys.userMessage !== null) index.search(keys.userMessage, (e) => out.push(e));
    }
    out.sort((a, b) => a.order - b.order);
    return out;
  }

  /**
   * The fixture that answers `keys`. `test`: the running test, whose own recorded fixtures
   * (a cassette's group for it) win over every other match, so two tests that sent the same
   * request each get the answer recorded for them, in the order it was recorded.
   */
  select(keys: MatchKeys, strictTurnIndex: boolean, test?: string): Selection | undefined {
    let matched: Entry[] = [];
    const judge = keys.context === JUDGE_CONTEXT;
    for (const e of this.candidatesFor(keys)) {
      // A judge's call is answered by a judge fixture only: an agent's catch-all never gives a verdict.
      if (judge && e.fixture.match?.context !== JUDGE_CONTEXT) continue;
      if (!contentMatches(e.compiled, keys)) continue;
      if (e.compiled.sequenceIndex !== undefined && this.servedCount(e) !== e.compiled.sequenceIndex)
        continue;
      if (strictTurnIndex && e.compiled.turnIndex !== undefined && e.compiled.turnIndex !== keys.turnIndex)
        continue;
      matched.push(e);
    }
    if (matched.length === 0) return undefined;
    if (test !== undefined) {
      const own = matched.filter((e) => e.group === test);
      if (own.length > 0) matched = own;
    }
    const entry = selectByTurnIndex(matched, keys.turnIndex);
    this.served.set(entry.shape, this.servedCount(entry) + 1);
    const t = entry.compiled.turnIndex;
    return { entry, turnIndexRelaxed: t !== undefined && t !== keys.turnIndex };
  }
}

function shapeKey(match: object): string {
  return JSON.stringify(match, (_k, v) => (v instanceof RegExp ? { regex: v.source, flags: v.flags } : v));
}
