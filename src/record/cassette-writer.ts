/**
 * The cassette's persister: it keeps what a record-mode file recorded and what its cassette must
 * replay, in order, and at the end of the file writes the cassette (merged with the one on disk
 * as the mode says, checked to replay that order) or says why it did not.
 */
import type { ErrorCode } from '../errors';
import { isUnderstudyError } from '../errors';
import { secretsInUse } from '../files/secrets';
import type { Fixture, RedactHook } from '../fixtures/types';
import type { MockModel } from '../model/mock-model';
import type { ResolvedOptions } from '../options';
import type { BuildOptions, RecordedCall, ReplayStep } from './build';
import type { CassetteChange } from './cassette';

// Required on first use: replay never builds or writes a cassette (js-yaml, ajv).
const build = (): typeof import('./build') => require('./build');
const cassettes = (): typeof import('./cassette') => require('./cassette');
const requestDiff = (): typeof import('./request-diff') => require('./request-diff');

export type Failure = { code: ErrorCode; message: string };

export class CassetteWriter {
  /** Every model call the provider answered in this file, in call order. */
  private readonly recorded: RecordedCall[] = [];
  /** The file's replay, in order: what the cassette about to be written must replay. */
  private readonly steps: ReplayStep[] = [];
  /** Tests that started, and those that ran to the end (a test `-t` filters out only starts). */
  private readonly started = new Set<string>();
  private readonly finished = new Set<string>();
  private readonly recordedPer: Record<string, number> = {};
  private readonly written: CassetteChange[] = [];

  constructor(
    private readonly options: ResolvedOptions,
    private readonly model: MockModel,
  ) {
    const { mode } = options;
    // The cassette is written after the last test, where Jest's CommonJS runtime refuses to load
    // a module ("outside of the scope of the test code"): what writing needs is loaded now.
    if (mode === 'record' || mode === 'record-missing') {
      build();
      requestDiff();
      cassettes().prepareCassetteWriter();
    }
  }

  testStarted(name: string): void {
    this.started.add(name);
  }

  testFinished(name: string): void {
    this.finished.add(name);
  }

  /** A call the provider answers, to be recorded: a step of the replay, and a fixture of the cassette. */
  add(rec: RecordedCall): void {
    this.recorded.push(rec);
    this.steps.push({ ...(rec.test !== undefined && { test: rec.test }), keys: rec.keys, call: rec });
  }

  /** A fixture of the cassette answered: a step the cassette must still replay. */
  answeredFromCassette(step: ReplayStep): void {
    this.steps.push(step);
  }

  /** The provider's reply to a call `add` took: counted for the reporter. */
  counted(provider: string, rec: RecordedCall): void {
    if (!this.recorded.includes(rec)) return;
    this.recordedPer[provider] = (this.recordedPer[provider] ?? 0) + 1;
  }

  /** Model calls recorded per provider, and the cassettes written. */
  stats(): { recorded: Record<string, number>; cassettes: CassetteChange[] } {
    return { recorded: { ...this.recordedPer }, cassettes: [...this.written] };
  }

  private buildOptions(where: string, redact?: RedactHook, redactName?: string): BuildOptions {
    const hook = redact ?? this.model.redactor;
    return {
      where,
      strictTurnIndex: this.options.strictTurnIndex,
      secrets: secretsInUse(),
      ...(hook && { redact: hook, redactName: redactName ?? 'understudy.model.redact' }),
    };
  }

  /** Fixtures for recorded calls (harness.getRecordedFixtures). */
  fixturesOf(calls: readonly RecordedCall[], where: string, redact?: RedactHook): Fixture[] {
    return build().fixturesFromCalls(
      calls,
      this.buildOptions(where, redact, redact ? 'the harness redact option' : undefined),
    );
  }

  /** The file is done: writes the cassette of a record mode, or says why not. */
  write(failedTests: number): Failure[] {
    const failures: Failure[] = [];
    const { mode, cassette } = this.options;
    const recording = mode === 'record' || mode === 'record-missing';
    const ranRecorded = mode === 'record' && [...this.finished].length > 0;
    if (!recording || (this.recorded.length === 0 && !ranRecorded)) return failures;
    if (failedTests > 0) {
      failures.push({
        code: 'RECORD_INCOMPLETE',
        message:
          `jest-understudy: ${mode} mode did not write ${cassette}: ${failedTests} test${failedTests === 1 ? '' : 's'} ` +
          'failed, and a cassette of a failing run would replay the failure. Fix the test or the agent and record again.',
      });
      return failures;
    }
    try {
      const options = this.buildOptions(`${mode} mode (${cassette})`);
      const built = build().buildFixtures(this.recorded, options);
      const existing = cassettes().readCassette(cassette);
      const plan = {
        mode,
        ran: this.finished,
        fullRun: [...this.started].every((t) => this.finished.has(t)),
      };
      const { fixtures, counts } = cassettes().mergeCassette(existing, built.fixtures, plan);
      build().checkReplay(fixtures, this.steps, built, options);
      const changed = this.recorded.length > 0 || counts.removed > 0;
      if (changed) this.written.push(cassettes().writeCassette(cassette, fixtures, counts, mode));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      failures.push({
        code: isUnderstudyError(error) ? error.code : 'FILE_FINISH_FAILED',
        message:
          `jest-understudy: ${mode} mode did not write ${cassette}; this file's tests ran against the ` +
          `real provider, but nothing was recorded: ${reason}`,
      });
    }
    return failures;
  }
}
