/**
 * The runtime's memory of what happened in the current test, for traces and the
 * reporter: every run (understudy.run, harness runs, drills) registered as it starts,
 * every model call, and the last failed trajectory expectation. Nothing here is
 * computed unless a trace is written; the per-file counters are a few additions per call.
 */
import { matchKeysOf } from '../conversation';
import { scrubSecrets } from '../redact';
import { toolCallsOf } from '../run/collect';
import { peek } from '../run/outcomes';
import type { ModelCall, Run } from '../run/types';
import type {
  CallEvidence,
  ExpectationEvidence,
  FileStats,
  OperationEvidence,
  Phase,
  RunEvidence,
  TestEvidence,
} from '../trace/evidence';
import { newTraceId, type OtlpSpan, runSpans } from '../trace/otlp';
import { plainError, toPlain } from '../trace/plain';

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

export class EvidenceLog {
  private runs: Tracked[] = [];
  private calls: Array<{ call: ModelCall; phase: Phase }> = [];
  /** Made outside any test (beforeAll hooks, file level): charged to the next test. */
  private outsideRuns: Tracked[] = [];
  private outsideCalls: Array<{ call: ModelCall; phase: Phase }> = [];
  private inTest = false;
  private expectation: ExpectationNote | undefined;

  private readonly counted = new WeakSet<object>();
  private readonly stats: Omit<FileStats, 'staleCassettes'> = {
    agentRuns: 0,
    replayed: {},
    operations: 0,
    unmatched: 0,
  };
  private readonly staleCassettes = new Set<string>();

  constructor(
    private readonly phaseNow: () => Phase | undefined,
    private readonly worldOperations: () => readonly unknown[] | undefined = () => undefined,
  ) {}

  private phase(): Phase {
    return this.phaseNow() ?? (this.inTest ? 'test' : 'file');
  }

  testStarted(): void {
    this.countOperations();
    this.runs = this.outsideRuns;
    this.calls = this.outsideCalls;
    this.outsideRuns = [];
    this.outsideCalls = [];
    this.expectation = undefined;
    this.inTest = true;
  }

  testFinished(): void {
    this.countOperations();
    this.inTest = false;
  }

  /** Registers a run as it starts; `calls` is the live list its model calls go into. */
  register(calls: readonly ModelCall[], startedAt: number, input: unknown, kind = 'run'): RunRegistration {
    const tracked: Tracked = { calls, startedAt, input, phase: this.phase(), kind };
    (this.inTest ? this.runs : this.outsideRuns).push(tracked);
    this.stats.agentRuns++;
    return {
      complete: (run, meta) => {
        tracked.run = run;
        if (meta) tracked.meta = meta;
        if (meta?.kind) tracked.kind = meta.kind;
        this.countOperations();
      },
    };
  }

  noteCall(call: ModelCall): void {
    (this.inTest ? this.calls : this.outsideCalls).push({ call, phase: this.phase() });
    if (call.unmatched) this.stats.unmatched++;
    else if (call.fixture !== undefined)
      this.stats.replayed[call.provider] = (this.stats.replayed[call.provider] ?? 0) + 1;
  }

  noteExpectation(note: ExpectationNote): void {
    this.expectation = note;
  }

  noteStaleCassette(file: string): void {
    this.staleCassettes.add(file);
  }

  private countOperations(): void {
    const count = (ops: readonly unknown[] | undefined) => {
      if (!Array.isArray(ops)) return;
      for (const op of ops) {
        if (typeof op !== 'object' || op === null || this.counted.has(op)) continue;
        this.counted.add(op);
        this.stats.operations++;
      }
    };
    for (const t of [...this.runs, ...this.outsideRuns]) count(t.run?.operations);
    count(this.worldOperations());
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

  /** The current test's evidence as plain, scrubbed data. */
  evidence(): TestEvidence {
    const inRuns = new Set<ModelCall>();
    for (const t of this.runs) for (const c of t.calls) inRuns.add(c);
    const phaseOf = new Map(this.calls.map((c) => [c.call, c.phase]));
    const runs = this.runs.map((t, index) => runEvidence(t, index, phaseOf));
    const looseCalls = this.calls
      .filter((c) => !inRuns.has(c.call))
      .map((c) => callEvidence(c.call, c.phase));
    const evidence: TestEvidence = {
      runs,
      looseCalls,
      timeOrigin: performance.timeOrigin,
    };
    const e = this.expectation;
    if (e) {
      const runIndex = this.runs.findIndex((t) => t.run !== undefined && t.run === e.received);
      const { received: _received, ...rest } = e;
      evidence.expectation = {
        ...(toPlain(rest) as ExpectationEvidence),
        ...(runIndex >= 0 && { runIndex }),
      };
    }
    return scrubSecrets(evidence) as TestEvidence;
  }
}

function fixtureName(call: ModelCall): string | undefined {
  const id = (call.fixture as { id?: unknown } | undefined)?.id;
  if (typeof id === 'string') return id;
  return call.fixtureIndex === undefined ? undefined : `#${call.fixtureIndex}`;
}

function callEvidence(call: ModelCall, phase: Phase): CallEvidence {
  const { conversation } = call;
  return toPlain({
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
    messages: conversation.messages,
    tools: conversation.tools,
    response: call.response,
    error: call.error,
    startedAt: call.startedAt,
    durationMs: call.durationMs,
    phase,
  }) as CallEvidence;
}

function runEvidence(t: Tracked, index: number, phaseOf: Map<ModelCall, Phase>): RunEvidence {
  const run = t.run;
  const calls = run?.modelCalls ?? t.calls;
  const toolCalls = run?.toolCalls ?? toolCallsOf(calls);
  const operations = (run?.operations ?? []) as unknown as OperationEvidence[];
  const loose = run as (Run & Record<string, unknown>) | undefined;
  const drill =
    t.meta?.drill ??
    (loose?.drill as RunMeta['drill']) ??
    (loose && ('build' in loose || 'seed' in loose) ? { build: loose.build, seed: loose.seed } : undefined);
  return toPlain({
    index,
    kind: t.kind,
    phase: t.phase,
    incomplete: run === undefined,
    input: run ? run.input : t.input,
    output: run?.output,
    finalMessage: run?.finalMessage,
    // Read unnoticed: writing a trace is not the test looking at how the run ended.
    terminalState: run && peek(run, 'terminalState'),
    error: run === undefined || peek(run, 'error') === undefined ? undefined : plainError(peek(run, 'error')),
    startedAt: t.startedAt,
    durationMs: run ? run.durationMs : performance.now() - t.startedAt,
    modelCalls: calls.map((c) => callEvidence(c, phaseOf.get(c) ?? t.phase)),
    toolCalls: toolCalls.map((c) => ({
      id: c.id,
      name: c.name,
      arguments: c.arguments,
      ...('result' in c && { result: c.result }),
      ...('error' in c && { error: c.error }),
      modelCallIndex: c.modelCallIndex,
      answered: c.answered,
    })),
    operations,
    drill,
  }) as RunEvidence;
}

/** `run.trace`: the run's spans in OTLP/JSON form (a trace of its own), secrets scrubbed. */
export function spansOfRun(run: Run, startedAt: number, kind = 'run'): OtlpSpan[] {
  const tracked: Tracked = { calls: run.modelCalls, startedAt, input: run.input, phase: 'test', kind, run };
  const evidence = scrubSecrets(runEvidence(tracked, 0, new Map())) as RunEvidence;
  return runSpans(evidence, newTraceId(), performance.timeOrigin);
}
