/**
 * The runtime's memory of what happened in the current test, for traces and the
 * reporter: every run (understudy.run, harness runs, drills) registered as it starts,
 * every model call, and the last failed trajectory expectation. Nothing here is
 * computed unless a trace is written; the per-file counters are a few additions per call.
 * `understudy.model.reset()` lets go of what the test did so far (the trace then counts
 * it), and a trace keeps what fits its budgets (src/trace/budget.ts), saying what it left out.
 */
import { matchKeysOf } from '../conversation';
import { secretsInUse } from '../files/secrets';
import type { ModelCall } from '../model/call';
import { scrubSecrets, scrubText } from '../redact';
import {
  fitted,
  keptMessages,
  keptSteps,
  type Omissions,
  TRACE_LIMITS,
  type TraceLimits,
} from '../trace/budget';
import type {
  CallEvidence,
  ExpectationEvidence,
  FileStats,
  HttpEvidence,
  OperationEvidence,
  Phase,
  RunEvidence,
  TestEvidence,
  ToolCallEvidence,
} from '../trace/evidence';
import type { OtlpSpan, TraceStep } from '../trace/otlp';
import { plainError, toPlain } from '../trace/plain';
import { toolCallsOf } from './collect';
import { recordOf } from './link';
import { peek } from './outcomes';
import type { HttpExchange, Run, ToolCall } from './types';

// The OTLP writer (and its attribute table) loads when a trace or a run's spans are first built;
// kept, as it is asked once per step (a bundled require builds a new exports view every call).
let otlpModule: typeof import('../trace/otlp') | undefined;
const otlp = (): typeof import('../trace/otlp') => {
  otlpModule ??= require('../trace/otlp') as typeof import('../trace/otlp');
  return otlpModule;
};

/** What a run adds to its registration when it ends. */
export interface RunMeta {
  /** 'run' (understudy.run), 'harness', 'drill'… */
  kind?: string;
  /** A drill's build and seed, so the trace can reproduce it. */
  drill?: { name?: string; build?: unknown; seed?: unknown; verdict?: unknown };
}

export interface RunRegistration {
  /** The run ended: its final state goes into the evidence. */
  complete(run: Run, meta?: RunMeta): void;
}

interface Tracked {
  calls: readonly ModelCall[];
  /** The live list the run's HTTP steps go into. */
  http?: readonly HttpExchange[];
  startedAt: number;
  input: unknown;
  phase: Phase;
  kind: string;
  run?: Run;
  meta?: RunMeta;
}

/** A failed trajectory expectation as a matcher reports it (test-realm values allowed). */
export interface ExpectationNote extends Omit<ExpectationEvidence, 'runIndex' | 'expected' | 'actual'> {
  expected: ReadonlyArray<{ name: string; args?: unknown }>;
  actual: ReadonlyArray<{ name: string; args?: unknown }>;
  received: unknown;
}

/** What the evidence log reads of its test file (the file's context): the phase now, the world's operation log. */
export interface EvidenceLogDeps {
  /** The phase of the test lifecycle running now (undefined: the test or the file, by whether a test runs). */
  readonly phase?: Phase | undefined;
  /** The file world's operations as they are (for the per-file count). */
  readonly world?: { readonly operations: readonly unknown[] | undefined };
}

export class EvidenceLog {
  private runs: Tracked[] = [];
  private calls: Array<{ call: ModelCall; phase: Phase }> = [];
  /** Made outside any test (beforeAll hooks, file level): charged to the next test. */
  private outsideRuns: Tracked[] = [];
  private outsideCalls: Array<{ call: ModelCall; phase: Phase }> = [];
  /** Requests the test's own msw handlers answered, in or out of runs. */
  private http: Noted<HttpExchange>[] = [];
  private outsideHttp: Noted<HttpExchange>[] = [];
  private inTest = false;
  private expectation: ExpectationNote | undefined;
  /** What `release()` let go of in the current test. */
  private released = { runs: 0, modelCalls: 0 };

  private readonly counted = new WeakSet<object>();
  private readonly stats: Omit<FileStats, 'staleCassettes'> = {
    agentRuns: 0,
    replayed: {},
    operations: 0,
    unmatched: 0,
  };
  private readonly staleCassettes = new Set<string>();

  constructor(
    private readonly deps: EvidenceLogDeps,
    private readonly limits: TraceLimits = TRACE_LIMITS,
  ) {}

  private phase(): Phase {
    return this.deps.phase ?? (this.inTest ? 'test' : 'file');
  }

  testStarted(): void {
    this.countOperations();
    this.runs = this.outsideRuns;
    this.calls = this.outsideCalls;
    this.http = this.outsideHttp;
    this.outsideRuns = [];
    this.outsideCalls = [];
    this.outsideHttp = [];
    this.expectation = undefined;
    this.released = { runs: 0, modelCalls: 0 };
    this.inTest = true;
  }

  testFinished(): void {
    this.countOperations();
    this.inTest = false;
  }

  /**
   * The model's call log was reset: the runs that ended and the model calls so far are let
   * go (runs still going stay), so a test that loops over thousands of calls holds only
   * the latest. The trace says how many it no longer has.
   */
  release(): void {
    this.countOperations();
    const runs = this.inTest ? this.runs : this.outsideRuns;
    const calls = this.inTest ? this.calls : this.outsideCalls;
    const going = runs.filter((t) => t.run === undefined);
    this.released.runs += runs.length - going.length;
    this.released.modelCalls += calls.length;
    if (this.inTest) {
      this.runs = going;
      this.calls = [];
    } else {
      this.outsideRuns = going;
      this.outsideCalls = [];
    }
  }

  /** Registers a run as it starts; `calls` (and `http`) are the live lists its steps go into. */
  register(
    calls: readonly ModelCall[],
    startedAt: number,
    input: unknown,
    kind = 'run',
    http?: readonly HttpExchange[],
  ): RunRegistration {
    const tracked: Tracked = { calls, startedAt, input, phase: this.phase(), kind, ...(http && { http }) };
    (this.inTest ? this.runs : this.outsideRuns).push(tracked);
    this.stats.agentRuns++;
    return {
      complete: (run, meta) => {
        tracked.run = run;
        if (meta) tracked.meta = meta;
        if (meta?.kind) tracked.kind = meta.kind;
        this.count(run.operations);
        this.countWorldOperations();
      },
    };
  }

  noteCall(call: ModelCall): void {
    (this.inTest ? this.calls : this.outsideCalls).push({ call, phase: this.phase() });
    if (call.unmatched) this.stats.unmatched++;
    else if (call.fixture !== undefined)
      this.stats.replayed[call.provider] = (this.stats.replayed[call.provider] ?? 0) + 1;
  }

  /** A request the test's own msw handlers answered (its run, if any, lists it too). */
  noteHttp(exchange: HttpExchange): void {
    (this.inTest ? this.http : this.outsideHttp).push({ item: exchange, phase: this.phase() });
  }

  noteExpectation(note: ExpectationNote): void {
    this.expectation = note;
  }

  noteStaleCassette(file: string): void {
    this.staleCassettes.add(file);
  }

  private count(ops: readonly unknown[] | undefined, from = 0): void {
    if (!Array.isArray(ops)) return;
    for (let i = from; i < ops.length; i++) {
      const op = ops[i];
      if (typeof op !== 'object' || op === null) continue;
      // A run's operation is a copy of the world's record: the two are one operation.
      const record = recordOf(op);
      if (this.counted.has(record)) continue;
      this.counted.add(record);
      this.stats.operations++;
    }
  }

  /**
   * Where the last look at the world's log ended: a log that only grew since is counted from
   * there (a look per run must not go over every earlier operation again); any other log from its start.
   */
  private worldSeen: { list?: readonly unknown[]; length: number; last?: unknown } = { length: 0 };

  private countWorldOperations(): void {
    const ops = this.deps.world?.operations;
    const seen = this.worldSeen;
    const grew =
      ops !== undefined &&
      ops === seen.list &&
      ops.length >= seen.length &&
      (seen.length === 0 || ops[seen.length - 1] === seen.last);
    this.count(ops, grew ? seen.length : 0);
    this.worldSeen = { list: ops, length: ops?.length ?? 0, last: ops?.[(ops?.length ?? 0) - 1] };
  }

  private countOperations(): void {
    for (const t of this.runs) this.count(t.run?.operations);
    for (const t of this.outsideRuns) this.count(t.run?.operations);
    this.countWorldOperations();
  }

  fileStats(): FileStats {
    this.countOperations();
    return {
      agentRuns: this.stats.agentRuns,
      replayed: { ...this.stats.replayed },
      operations: this.stats.operations,
      unmatched: this.stats.unmatched,
      staleCassettes: [...this.staleCassettes],
    };
  }

  /** The current test's evidence as plain, scrubbed data, within the trace's budgets. */
  evidence(): TestEvidence {
    const secrets = secretsInUse();
    const scrub = (text: string) => scrubText(text, { values: secrets });
    const built = buildEvidence(this.runs, this.calls, this.http, this.limits, scrub);
    const evidence: TestEvidence = {
      runs: built.runs,
      looseCalls: built.looseCalls,
      ...(built.looseHttp.length > 0 && { looseHttp: built.looseHttp }),
      timeOrigin: performance.timeOrigin,
    };
    const omitted = { ...built.omitted };
    if (this.released.runs > 0 || this.released.modelCalls > 0) omitted.released = { ...this.released };
    if (isSomething(omitted)) evidence.omitted = omitted;
    const e = this.expectation;
    if (e) {
      const runIndex = this.runs.findIndex((t) => t.run !== undefined && t.run === e.received);
      const { received: _received, ...rest } = e;
      evidence.expectation = {
        ...expectationWithin(
          toPlain(rest, { maxString: this.limits.maxString, scrub }) as ExpectationEvidence,
          this.limits,
        ),
        ...(runIndex >= 0 && { runIndex }),
      };
    }
    return scrubSecrets(evidence, { values: secrets }) as TestEvidence;
  }
}

function isSomething(o: Omissions): boolean {
  return (
    o.runs + o.modelCalls + o.toolCalls + o.operations + (o.httpRequests ?? 0) > 0 || o.released !== undefined
  );
}

/** A step noted with the phase of the test it came in. */
interface Noted<T> {
  item: T;
  phase: Phase;
}

/**
 * A failed sequence expectation over a long run keeps the rows at its start, around its
 * first divergence and at its end; the entries no kept row shows become bare names.
 */
function expectationWithin(e: ExpectationEvidence, limits: TraceLimits): ExpectationEvidence {
  const max = limits.maxItems * 4;
  if (e.rows.length <= max) return e;
  const third = Math.floor(max / 3);
  const at = e.divergence ?? e.rows.findIndex((r) => !r.ok);
  const keep = (i: number) =>
    i < third || i >= e.rows.length - third || (at >= 0 && Math.abs(i - at) <= third / 2);
  const rows = e.rows.filter((_, i) => keep(i));
  const shown = (side: 'expected' | 'received') => new Set(rows.map((r) => r[side]));
  const bare = (list: ExpectationEvidence['expected'], used: Set<number | undefined>) =>
    list.map((step, i) => (used.has(i) ? step : { name: step.name }));
  return {
    ...e,
    expected: bare(e.expected, shown('expected')),
    actual: bare(e.actual, shown('received')),
    rows,
    ...(at >= 0 && { divergence: rows.indexOf(e.rows[at]) }),
    omittedRows: e.rows.length - rows.length,
  };
}

function fixtureName(call: ModelCall): string | undefined {
  const id = (call.fixture as { id?: unknown } | undefined)?.id;
  if (typeof id === 'string') return id;
  return call.fixtureIndex === undefined ? undefined : `#${call.fixtureIndex}`;
}

type Scrub = (text: string) => string;

const plainWithin = (value: unknown, l: TraceLimits, scrub: Scrub) =>
  toPlain(value, { maxString: l.maxString, maxItems: l.maxItems, maxKeys: l.maxKeys, scrub });

function callEvidence(call: ModelCall, phase: Phase, l: TraceLimits, scrub: Scrub): CallEvidence {
  const { conversation } = call;
  const { messages, omitted } = keptMessages(conversation.messages, l.maxMessages);
  return plainWithin(
    {
      index: call.index,
      provider: call.provider,
      protocol: call.protocol,
      url: call.url,
      model: conversation.model,
      streamed: call.streamed,
      unmatched: call.unmatched,
      fixture: fixtureName(call),
      fixtureSource: call.fixtureSource,
      turnIndexRelaxed: call.turnIndexRelaxed,
      fault: call.fault,
      matchKeys: matchKeysOf(conversation),
      messages,
      ...(omitted > 0 && { omittedMessages: omitted }),
      tools: conversation.tools,
      response: call.response,
      error: call.error,
      cut: call.cut,
      whole: call.whole,
      startedAt: call.startedAt,
      durationMs: call.durationMs,
      phase,
    },
    l,
    scrub,
  ) as CallEvidence;
}

function toolEvidence(c: ToolCall, l: TraceLimits, scrub: Scrub): ToolCallEvidence {
  return plainWithin(
    {
      id: c.id,
      name: c.name,
      arguments: c.arguments,
      ...('result' in c && { result: c.result }),
      ...('error' in c && { error: c.error }),
      modelCallIndex: c.modelCallIndex,
      fileModelCallIndex: c.fileModelCallIndex,
      answered: c.answered,
      ...(c.incomplete && { incomplete: true }),
    },
    l,
    scrub,
  ) as ToolCallEvidence;
}

type RunHead = Omit<RunEvidence, 'modelCalls' | 'toolCalls' | 'operations'>;

function runHead(t: Tracked, index: number, l: TraceLimits, scrub: Scrub): RunHead {
  const run = t.run;
  const loose = run as (Run & Record<string, unknown>) | undefined;
  const drill =
    t.meta?.drill ??
    (loose?.drill as RunMeta['drill']) ??
    (loose && ('build' in loose || 'seed' in loose) ? { build: loose.build, seed: loose.seed } : undefined);
  return plainWithin(
    {
      index,
      kind: t.kind,
      phase: t.phase,
      incomplete: run === undefined,
      input: run ? run.input : t.input,
      output: run?.output,
      finalMessage: run?.finalMessage,
      // Read unnoticed: writing a trace is not the test looking at how the run ended.
      terminalState: run && peek(run, 'terminalState'),
      error:
        run === undefined || peek(run, 'error') === undefined ? undefined : plainError(peek(run, 'error')),
      startedAt: t.startedAt,
      durationMs: run ? run.durationMs : performance.now() - t.startedAt,
      files: run?.files,
      drill,
    },
    l,
    scrub,
  ) as RunHead;
}

function httpEvidence(exchange: HttpExchange, phase: Phase, l: TraceLimits, scrub: Scrub): HttpEvidence {
  return plainWithin({ ...exchange, phase }, l, scrub) as HttpEvidence;
}

/** One step of a test, in the order a trace lists them. */
type Step =
  | { kind: 'run'; run: number }
  | { kind: 'call'; run: number; call: ModelCall }
  | { kind: 'tool'; run: number; tool: ToolCall }
  | { kind: 'operation'; run: number; operation: unknown }
  | { kind: 'http'; run: number; exchange: HttpExchange }
  | { kind: 'loose'; call: ModelCall; phase: Phase }
  | { kind: 'looseHttp'; exchange: HttpExchange; phase: Phase };

/**
 * The evidence of runs and loose model calls as plain data: every payload within its
 * budget, and as many steps, from the start and the end, as the trace's budget holds.
 */
function buildEvidence(
  tracked: readonly Tracked[],
  noted: ReadonlyArray<{ call: ModelCall; phase: Phase }>,
  notedHttp: ReadonlyArray<Noted<HttpExchange>>,
  limits: TraceLimits,
  scrub: Scrub,
): { runs: RunEvidence[]; looseCalls: CallEvidence[]; looseHttp: HttpEvidence[]; omitted: Omissions } {
  const inRuns = new Set<ModelCall>();
  const phaseOf = new Map<ModelCall, Phase>();
  for (const c of noted) phaseOf.set(c.call, c.phase);
  const httpInRuns = new Set<HttpExchange>();
  const httpPhase = new Map<HttpExchange, Phase>();
  for (const h of notedHttp) httpPhase.set(h.item, h.phase);
  const steps: Step[] = [];
  const headStep: number[] = [];
  tracked.forEach((t, run) => {
    const calls = t.run?.modelCalls ?? t.calls;
    for (const c of calls) inRuns.add(c);
    headStep[run] = steps.length;
    steps.push({ kind: 'run', run });
    for (const call of calls) steps.push({ kind: 'call', run, call });
    for (const tool of t.run?.toolCalls ?? toolCallsOf(calls)) steps.push({ kind: 'tool', run, tool });
    for (const operation of t.run?.operations ?? []) steps.push({ kind: 'operation', run, operation });
    for (const exchange of t.http ?? []) {
      httpInRuns.add(exchange);
      steps.push({ kind: 'http', run, exchange });
    }
  });
  for (const c of noted) if (!inRuns.has(c.call)) steps.push({ kind: 'loose', call: c.call, phase: c.phase });
  for (const h of notedHttp)
    if (!httpInRuns.has(h.item)) steps.push({ kind: 'looseHttp', exchange: h.item, phase: h.phase });

  const build = (step: Step, l: TraceLimits): TraceStep => {
    switch (step.kind) {
      case 'run':
        return { run: runHead(tracked[step.run], step.run, l, scrub) };
      case 'call':
        return { call: callEvidence(step.call, phaseOf.get(step.call) ?? tracked[step.run].phase, l, scrub) };
      case 'loose':
        return { call: callEvidence(step.call, step.phase, l, scrub) };
      case 'tool':
        return { tool: toolEvidence(step.tool, l, scrub) };
      case 'operation':
        return { operation: plainWithin(step.operation, l, scrub) as OperationEvidence };
      case 'http':
        return {
          http: httpEvidence(
            step.exchange,
            httpPhase.get(step.exchange) ?? tracked[step.run].phase,
            l,
            scrub,
          ),
        };
      case 'looseHttp':
        return { http: httpEvidence(step.exchange, step.phase, l, scrub) };
    }
  };
  // Each payload is built once, as the walk reaches it; what the budget stops before is never built.
  // The budget counts what the step's span takes in the written trace.
  const payloads = new Map<number, unknown>();
  const kept = keptSteps(
    steps.length,
    (i) => {
      const { payload } = fitted(limits, (l) => build(steps[i], l));
      payloads.set(i, Object.values(payload)[0]);
      return otlp().traceBytesOf(payload);
    },
    limits,
  );

  const omitted: Omissions = {
    runs: 0,
    modelCalls: 0,
    toolCalls: 0,
    operations: 0,
    httpRequests: 0,
    limits: {
      maxPayloadBytes: limits.maxPayloadBytes,
      maxFileBytes: limits.maxFileBytes,
      maxSteps: limits.maxSteps,
    },
  };
  const runs = tracked.map(() => ({
    used: false,
    modelCalls: [] as CallEvidence[],
    toolCalls: [] as ToolCallEvidence[],
    operations: [] as OperationEvidence[],
    httpRequests: [] as HttpEvidence[],
    omitted: { modelCalls: 0, toolCalls: 0, operations: 0, httpRequests: 0 },
  }));
  const looseCalls: CallEvidence[] = [];
  const looseHttp: HttpEvidence[] = [];
  steps.forEach((step, i) => {
    const keep = kept.has(i);
    if (step.kind === 'run') {
      if (keep) runs[step.run].used = true;
      return;
    }
    const field = FIELD[step.kind];
    if (!keep) {
      omitted[field] = (omitted[field] ?? 0) + 1;
      if (step.kind !== 'loose' && step.kind !== 'looseHttp') runs[step.run].omitted[field]++;
      return;
    }
    const payload = payloads.get(i);
    if (step.kind === 'loose') looseCalls.push(payload as CallEvidence);
    else if (step.kind === 'looseHttp') looseHttp.push(payload as HttpEvidence);
    else {
      const r = runs[step.run];
      r.used = true;
      (r[field] as unknown[]).push(payload);
    }
  });
  const out: RunEvidence[] = [];
  runs.forEach((r, i) => {
    if (!r.used) {
      omitted.runs++;
      return;
    }
    const head = (payloads.get(headStep[i]) ??
      fitted(limits, (l) => runHead(tracked[i], i, l, scrub)).payload) as RunHead;
    const { httpRequests: droppedHttp, ...droppedSteps } = r.omitted;
    const dropped = droppedSteps.modelCalls + droppedSteps.toolCalls + droppedSteps.operations + droppedHttp;
    out.push({
      ...head,
      modelCalls: r.modelCalls,
      toolCalls: r.toolCalls,
      operations: r.operations,
      ...(r.httpRequests.length > 0 && { httpRequests: r.httpRequests }),
      ...(dropped > 0 && { omitted: droppedHttp > 0 ? r.omitted : droppedSteps }),
    });
  });
  if (omitted.httpRequests === 0) delete omitted.httpRequests;
  return { runs: out, looseCalls, looseHttp, omitted };
}

/** Where a step goes among a run's (or the test's) steps, and what a left-out one counts as. */
const FIELD = {
  call: 'modelCalls',
  loose: 'modelCalls',
  tool: 'toolCalls',
  operation: 'operations',
  http: 'httpRequests',
  looseHttp: 'httpRequests',
} as const satisfies Record<Exclude<Step['kind'], 'run'>, string>;

/** `run.trace`: the run's spans in OTLP/JSON form (a trace of its own), secrets scrubbed. */
export function spansOfRun(
  run: Run,
  startedAt: number,
  kind = 'run',
  http: readonly HttpExchange[] = [],
): OtlpSpan[] {
  const tracked: Tracked = {
    calls: run.modelCalls,
    startedAt,
    input: run.input,
    phase: 'test',
    kind,
    run,
    http,
  };
  const secrets = secretsInUse();
  const scrub = (text: string) => scrubText(text, { values: secrets });
  const [evidence] = buildEvidence([tracked], [], [], TRACE_LIMITS, scrub).runs;
  const { runSpans, newTraceId } = otlp();
  return runSpans(
    scrubSecrets(evidence, { values: secrets }) as RunEvidence,
    newTraceId(),
    performance.timeOrigin,
  );
}
