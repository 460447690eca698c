import { type ContractsSetting, settingProblem } from '../contracts/rules';
import type { Conversation, MatchKeys, NeutralError, NeutralReply } from '../conversation';
import { matchKeysOf } from '../conversation';
import { UnderstudyError } from '../errors';
import type { FixtureArgument } from '../fixtures/argument';
import { type DialectSetting, dialectSettingProblem } from '../fixtures/stream-dialects';
import type { Fixture, FixtureChaos, RedactHook } from '../fixtures/types';
import type { EmbeddingCall, ModelCall } from './call';
import { ChaosDice, type ChaosFault } from './chaos';
import { describeUnmatched, nearestMisses } from './diagnose';
import { DialectChooser } from './dialects';
import { type Entry, FixtureStore, type Scope } from './fixture-store';
import { contentMatches } from './match';
import { errorFrom, replyFrom } from './reply';

interface Selected {
  entry: Entry;
  keys: MatchKeys;
  turnIndexRelaxed: boolean;
  fault?: ChaosFault;
}

export type Resolution =
  | ({ kind: 'reply'; reply: NeutralReply } & Selected)
  | ({ kind: 'error'; error: NeutralError } & Selected)
  | { kind: 'unmatched'; keys: MatchKeys; message: string };

/** Anything that can become fixtures: an array, `{ fixtures }` as in a file, or a `script()` builder. */
export type FixtureSource =
  | readonly Fixture[]
  | { fixtures: readonly Fixture[] }
  | { build(): Fixture[] }
  | { toFixtures(): Fixture[] };

// Required on first use: the schema validator is evaluated only by files that register fixtures.
const argument = (): typeof import('../fixtures/argument') => require('../fixtures/argument');

/**
 * Validated copies of fixtures given in memory, checked by THE fixture schema like a file.
 * @throws FixtureFileError naming `where.call` and the path of every problem.
 */
export function toFixtures(
  source: FixtureSource,
  where: FixtureArgument = { call: 'understudy.model.use()', root: 'use()' },
): Fixture[] {
  return argument().fixturesFromArgument(source, where);
}

export interface MockModelOptions {
  strictTurnIndex: boolean;
  /** Seed for chaos draws that name none. */
  chaosSeed?: number;
  /** Called after `reset()`, so what keeps evidence of the calls can let them go too. */
  onReset?: () => void;
  /** Throws when fixtures may not be registered now (`what` names the call). */
  guard?: (what: string) => void;
}

/** One test file's mock model: registered fixtures, selection, and the call log. */
export class MockModel {
  private readonly store = new FixtureStore();
  /** Every model request since the last reset (or the start of the current test). */
  readonly calls: ModelCall[] = [];
  /** Every embedding request since the last reset (or the start of the current test). */
  readonly embeddings: EmbeddingCall[] = [];
  private scope: Scope = 'file';
  /** Chaos set outside tests (file level, beforeAll): it stays for the file. */
  private fileChaos: FixtureChaos | undefined;
  /** Chaos set inside the running test, `undefined` included (chaos off): it ends with the test. */
  private testChaos: { config: FixtureChaos | undefined } | undefined;
  private readonly dice: ChaosDice;
  /** @internal which stream dialect answers each request (see ./dialects). */
  readonly dialectChooser = new DialectChooser();

  constructor(private readonly options: MockModelOptions) {
    this.dice = new ChaosDice(options.chaosSeed ?? 0);
  }

  /**
   * Seeded random faults for every fixture that has no `chaos` of its own, e.g.
   * `chaos({ rateLimitRate: 0.3, seed: 7 })`; `chaos(undefined)` turns them off.
   * Draws restart with each test, so a test replays the same faults every run. Like
   * fixtures, chaos set inside a test (or its beforeEach) ends with it; set at file level or
   * in beforeAll, it applies to every test of the file that does not set its own.
   */
  chaos(config: FixtureChaos | undefined): this {
    if (this.scope === 'test') this.testChaos = { config };
    else this.fileChaos = config;
    return this;
  }

  /**
   * Replays streams in the shapes real providers and gateways send: `dialect('all')`, a list of
   * dialect names, `{ dialects, seed }`, or `'none'`; `dialect(undefined)` drops the setting. A
   * fixture's own `dialect` wins. Scoped like `chaos()`: in a test, for that test; else the file.
   */
  dialect(setting: DialectSetting | undefined): this {
    const problem = setting === undefined ? undefined : dialectSettingProblem(setting);
    if (problem) throw new UnderstudyError('BAD_ARGUMENT', `understudy.model.dialect(setting): ${problem}`);
    this.dialectChooser.set(this.scope === 'test' ? 'test' : 'file', setting);
    return this;
  }

  private get defaultChaos(): FixtureChaos | undefined {
    return this.testChaos ? this.testChaos.config : this.fileChaos;
  }

  private contractLayers: { file?: ContractsSetting; test?: ContractsSetting } = {};
  /** The layers last handed out, kept while they stay the same (asked for on every request). */
  private layers: Array<ContractsSetting | undefined> = [];

  /**
   * Turns request contracts off or on: `contracts(false)`, or per rule,
   * `contracts({ 'tool-results': false })`. Called in a test (or its `beforeEach`) it holds for
   * that test; at file level or in `beforeAll`, for the rest of the file. It applies over
   * the `contracts` option; `reset()` drops it (inside a test, only what the test set).
   */
  contracts(setting: ContractsSetting): this {
    const problem = settingProblem(setting);
    if (problem) throw new UnderstudyError('BAD_ARGUMENT', `understudy.model.contracts(setting): ${problem}`);
    this.contractLayers[this.scope === 'test' ? 'test' : 'file'] = setting;
    return this;
  }

  /** @internal `base` (the option), then what `contracts()` set for the file and for the test. */
  contractSettings(base: ContractsSetting): ReadonlyArray<ContractsSetting | undefined> {
    const { file, test } = this.contractLayers;
    const l = this.layers;
    if (l[0] !== base || l[1] !== file || l[2] !== test) this.layers = [base, file, test];
    return this.layers;
  }

  /**
   * Registers fixtures after those already registered (the first match wins). They are
   * validated like a fixture file; a bad one throws FixtureFileError and registers nothing.
   */
  use(source: FixtureSource, scope: Scope = this.scope): this {
    this.options.guard?.('registered fixtures (understudy.model.use)');
    this.store.add(toFixtures(source), scope);
    return this;
  }

  /** @internal registers fixtures that were validated already (loaded from files). */
  register(fixtures: readonly Fixture[], scope: Scope): this {
    this.store.add(fixtures, scope);
    return this;
  }

  /**
   * Drops the fixtures registered with `use` and the chaos (a harness's own and config-level
   * fixtures stay), restarts sequences and clears the call log. Called inside a test, the file's
   * fixtures and chaos are set aside for the rest of that test only.
   */
  reset(): void {
    // Inside a test, the file's own fixtures are only hidden until the test ends: each test starts
    // from the file's configuration, whatever an earlier test reset.
    if (this.scope === 'test') this.store.mute('file');
    this.store.clear((s) => (this.scope === 'test' ? s === 'test' : s === 'file' || s === 'test'));
    this.restartSequences();
    if (this.scope === 'test') {
      this.testChaos = { config: undefined };
      this.contractLayers.test = undefined;
      this.dialectChooser.clear('test', true);
    } else {
      this.fileChaos = undefined;
      this.testChaos = undefined;
      this.contractLayers = {};
      this.dialectChooser.clear('file');
      this.dialectChooser.clear('test');
    }
    this.calls.length = 0;
    this.embeddings.length = 0;
    this.options.onReset?.();
  }

  private readonly accepted = new WeakSet<ModelCall>();

  /** Requests no fixture answered. */
  get unmatched(): ModelCall[] {
    return this.calls.filter((c) => c.unmatched);
  }

  /**
   * Marks the unmatched requests so far as expected, so they do not fail the test
   * (for tests of how an agent copes with a model that cannot answer). Returns them.
   * `only` limits it to those calls.
   */
  acceptUnmatched(only?: readonly ModelCall[]): ModelCall[] {
    const calls = only ? only.filter((c) => c.unmatched) : this.unmatched;
    for (const c of calls) this.accepted.add(c);
    return calls;
  }

  /** @internal */
  isAccepted(call: ModelCall): boolean {
    return this.accepted.has(call);
  }

  get fixtures(): Fixture[] {
    return this.store.all.map((e) => e.fixture);
  }

  /** The running test, whose own cassette fixtures answer it first. */
  private test: string | undefined;
  /** @internal the embedding fixtures that can answer now (see src/embeddings). */
  get embeddingFixtures(): Fixture[] {
    return this.store.embeddings;
  }

  /** @internal a test starts: its registrations, calls and sequence counts are its own. */
  beginTest(name?: string): void {
    this.test = name;
    this.calls.length = 0;
    this.embeddings.length = 0;
    this.restartSequences();
    this.scope = 'test';
  }

  /** @internal `sequenceIndex` counts and chaos draws start again (a test, a drill trial). */
  restartSequences(): void {
    this.store.resetCounts();
    this.dice.reset();
    this.dialectChooser.restart();
  }

  /** @internal a test ended: fixtures it registered are dropped. */
  endTest(): void {
    this.test = undefined;
    this.store.clear((s) => s === 'test');
    this.store.unmuteAll();
    this.testChaos = undefined;
    this.contractLayers.test = undefined;
    this.dialectChooser.clear('test');
    this.scope = 'file';
  }

  /** @internal */
  clearScope(scope: Scope): void {
    this.store.clear((s) => s === scope);
  }

  /** @internal */
  get strictTurnIndex(): boolean {
    return this.options.strictTurnIndex;
  }

  private normalizer: ((text: string) => string) | undefined;

  /**
   * Rewrites message texts before matching, on replay and when recording, so dynamic values
   * (timestamps, UUIDs, temp paths) in prompts do not break replay: applied to the latest
   * user text, the system prompt and the tool result a request's keys are read from.
   * `normalize(undefined)` turns it off. It stays for the whole test file.
   */
  normalize(fn: ((text: string) => string) | undefined): this {
    if (fn !== undefined && typeof fn !== 'function')
      throw new UnderstudyError(
        'BAD_ARGUMENT',
        'understudy.model.normalize(fn): expected a function (text) => text, or undefined',
      );
    this.normalizer = fn;
    return this;
  }

  private redactHook: RedactHook | undefined;

  /**
   * A hook every recorded fixture goes through last, after headers were dropped and secrets
   * scrubbed, before it is returned or written: blank customer data, drop fields. Return a
   * fixture or change the one given. `redact(undefined)` turns it off. Used by record mode,
   * `record-missing` and `harness.getRecordedFixtures()` (a harness's own `redact` wins).
   */
  redact(fn: RedactHook | undefined): this {
    if (fn !== undefined && typeof fn !== 'function')
      throw new UnderstudyError(
        'BAD_ARGUMENT',
        'understudy.model.redact(fn): expected a function (fixture) => fixture, or undefined',
      );
    this.redactHook = fn;
    return this;
  }

  /** @internal */
  get redactor(): RedactHook | undefined {
    return this.redactHook;
  }

  /** @internal the normalize hook, for recording (identity when none is set). */
  normalizeText(text: string): string {
    return this.normalizer ? String(this.normalizer(text)) : text;
  }

  private view: ((conversation: Conversation) => Conversation) | undefined;

  /**
   * @internal How every request is seen before its keys are read (recording's personal-data
   * placeholders), on replay and when recording alike.
   */
  viewRequests(view: ((conversation: Conversation) => Conversation) | undefined): void {
    this.view = view;
  }

  /** @internal a request's match keys, after the request view and the normalize hook. */
  keysOf(conversation: Conversation): MatchKeys {
    const keys = matchKeysOf(this.view ? this.view(conversation) : conversation);
    const n = this.normalizer;
    if (!n) return keys;
    return {
      ...keys,
      userMessage: keys.userMessage === null ? null : String(n(keys.userMessage)),
      toolResult: keys.toolResult === null ? null : String(n(keys.toolResult)),
      systemMessage: String(n(keys.systemMessage)),
    };
  }

  /**
   * @internal What the user says next in a voice session, whose audio has no text: the
   * `userMessage` (a string) of the first fixture not served yet that would answer the
   * conversation with it as the user's turn, else of the first served one. Null when no fixture
   * answers a spoken turn here. A fixture recorded from a spoken turn is heard only from the same
   * audio (`audio`: its `sha256:` digest), so other audio is no turn the recording covers.
   */
  heard(conversation: Conversation, audio?: string): string | null {
    const base = this.keysOf(conversation);
    // A fixture not served yet is the user's next line; one served already, a line said again.
    let again: string | null = null;
    for (const e of this.store.all) {
      const said = e.compiled.userLiteral;
      if (said === null) continue;
      const from = e.fixture.metadata?.heard;
      if (typeof from === 'string' && from !== audio) continue;
      const keys = { ...base, userMessage: said, hasToolResult: false, toolCallId: null, toolResult: null };
      if (e.compiled.turnIndex !== undefined && e.compiled.turnIndex !== keys.turnIndex) continue;
      if (e.compiled.sequenceIndex !== undefined && this.store.servedCount(e) !== e.compiled.sequenceIndex)
        continue;
      if (!contentMatches(e.compiled, keys)) continue;
      if (this.store.servedCount(e) === 0) return said;
      again ??= said;
    }
    return again;
  }

  /** `idPrefix`: how the protocol's tool call ids start (`call_`, `toolu_`…). */
  resolve(conversation: Conversation, what: string, idPrefix?: string): Resolution {
    const keys = this.keysOf(conversation);
    const strict = this.options.strictTurnIndex;
    const selection = this.store.select(keys, strict, this.test);
    if (!selection) {
      const near = nearestMisses(this.store.all, keys, strict, (e) => this.store.servedCount(e));
      return { kind: 'unmatched', keys, message: describeUnmatched(what, keys, near, this.store.size) };
    }
    const { entry, turnIndexRelaxed } = selection;
    const error = errorFrom(entry.fixture);
    if (error) return { kind: 'error', error, entry, keys, turnIndexRelaxed };
    const chaos = entry.fixture.chaos ?? this.defaultChaos;
    const fault = chaos ? this.dice.draw(chaos) : undefined;
    const reply = replyFrom(entry.fixture, entry.order, conversation, keys, idPrefix);
    return { kind: 'reply', reply, entry, keys, turnIndexRelaxed, ...(fault ? { fault } : {}) };
  }
}
