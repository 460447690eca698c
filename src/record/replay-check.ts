/**
 * What replay checks as a fixture answers: it notes the fixture's file for the usage record
 * (`understudy fixtures check --unused`), fails a recorded answer that calls a tool the request
 * no longer offers, checks a cassette fixture for staleness (what changed in the request since it
 * was recorded, its age), and puts personal data back where the answer quotes it.
 */
import { offeredToolsOf } from '../contracts/offered-tools';
import type { Conversation, MatchKeys, NeutralReply } from '../conversation';
import type { ErrorCode } from '../errors';
import { suggestName } from '../file-format/suggest';
import { type Fixture, sourceOf } from '../fixtures/types';
import type { MockModel } from '../model/mock-model';
import type { ResolvedOptions } from '../options';
import { ageInWords } from './age';
import { describeDrift, fingerprintOf } from './prompt-hash';
import type { RequestViews } from './request-views';
import type { StaleNote } from './usage';

/** What a fixture answered with, as the model server holds it before it goes on the wire. */
export interface ReplayedAnswer {
  entry: { fixture: Fixture };
  keys: MatchKeys;
  kind: 'reply' | 'error';
  reply?: NeutralReply;
}

const requestDiff = (): typeof import('./request-diff') => require('./request-diff');

export interface ReplayCheckDeps {
  readonly model: MockModel;
  readonly options: ResolvedOptions;
  fail(code: ErrorCode, message: string): void;
  readonly evidence?: { noteStaleCassette?(file: string): void };
}

export class ReplayCheck {
  private readonly warned = new WeakMap<Fixture, Set<string>>();
  /** Fixture file → JSON paths of its fixtures that answered a request, for the usage record. */
  readonly used = new Map<string, Set<string>>();
  /** Stale cassette fixtures that answered, for the usage record (`understudy record --stale`). */
  private readonly staleNotes = new Map<string, StaleNote>();

  constructor(
    private readonly deps: ReplayCheckDeps,
    private readonly views: RequestViews,
  ) {}

  /** Stale cassette fixtures that answered, once each. */
  get stale(): StaleNote[] {
    return [...this.staleNotes.values()];
  }

  /** A fixture answered `what` (in test `test`, when one is running). */
  answered(
    answer: ReplayedAnswer,
    conversation: Conversation,
    body: unknown,
    what: () => string,
    test: string | undefined,
  ): void {
    const { fixture } = answer.entry;
    const source = sourceOf(fixture);
    if (source?.file) {
      let paths = this.used.get(source.file);
      if (!paths) {
        paths = new Set();
        this.used.set(source.file, paths);
      }
      if (source.path) paths.add(source.path);
    }
    if (answer.reply && (this.deps.options.pii ?? []).length > 0)
      answer.reply = this.views.restored(answer.reply, conversation);
    const meta = fixture.metadata;
    if (!meta || (typeof meta.promptHash !== 'string' && meta.request === undefined)) return;
    const name =
      (fixture.id !== undefined ? `fixture "${fixture.id}"` : 'fixture') +
      (source?.file ? ` (${source.file} ${source.path ?? ''})`.replace(/ \)$/, ')') : '') +
      (meta.test ? ` recorded in test "${meta.test}"` : '');

    // Anthropic's client tools with fixed names (bash, the text editor) have no schema in the conversation.
    const fixed =
      typeof body === 'object' && body !== null
        ? (offeredToolsOf(conversation.protocol, body as Record<string, unknown>)?.client ?? [])
        : [];
    const offered = [...new Set([...conversation.tools.map((t) => t.name), ...fixed])];
    const gone = (answer.reply?.toolCalls ?? []).find((c) => !offered.includes(c.name));
    if (gone) {
      const renamed = suggestName(gone.name, offered);
      this.deps.fail(
        'CASSETTE_TOOL_MISSING',
        `jest-understudy: ${name} answered ${what()} with a call to ${JSON.stringify(gone.name)}, but the request ` +
          `offers ${offered.length === 0 ? 'no tools' : `only ${offered.map((t) => JSON.stringify(t)).join(', ')}`}` +
          `${renamed ? ` (renamed to ${JSON.stringify(renamed)}?)` : ''}: ` +
          'the tool was renamed or removed since the recording, and a model cannot call a tool it was not given, so ' +
          'this answer cannot be right. Record it again (`understudy record --stale`, or `understudy record -- <test file> -t "<test name>"`).',
      );
    }

    const reasons: string[] = [];
    if (meta.request) {
      const live = this.views.recordedRequestOf(conversation, body);
      if (live.requestHash !== meta.requestHash) {
        const drift = requestDiff().firstDifference(meta.request, live.request, {
          recorded: meta.toolsHash,
          live: live.toolsHash,
        });
        if (drift) reasons.push(`${drift} since it was recorded`);
      }
    } else if (typeof meta.promptHash === 'string') {
      const now = fingerprintOf(conversation, (t) => this.deps.model.normalizeText(t));
      const changes = describeDrift(meta, now);
      if (changes.length > 0) reasons.push(`${changes.join(' and ')} since it was recorded`);
    }
    const maxAge = this.deps.options.cassetteMaxAge;
    const at = typeof meta.recordedAt === 'string' ? Date.parse(meta.recordedAt) : Number.NaN;
    if (maxAge && Number.isFinite(at) && this.deps.options.startedAt - at > maxAge.ms)
      reasons.push(
        `it was recorded ${ageInWords(this.deps.options.startedAt - at)} ago (${meta.recordedAt}), longer ago than cassetteMaxAge ${maxAge.text}`,
      );
    if (reasons.length === 0) return;
    const reason = reasons.join(', and ');
    const strict = this.deps.options.strictCassettes;
    const message =
      `jest-understudy: stale cassette: ${name} answered ${what()}, but ${reason}. Record it again ` +
      '(`understudy record --stale`, or `understudy record -- <test file> -t "<test name>"`), ' +
      (strict ? 'or turn strictCassettes off to only warn.' : 'or set strictCassettes to fail on this.');
    if (source?.file) {
      this.deps.evidence?.noteStaleCassette?.(source.file);
      const key = `${source.file}\u0000${source.path ?? ''}`;
      if (!this.staleNotes.has(key))
        this.staleNotes.set(key, {
          file: source.file,
          ...(source.path && { path: source.path }),
          ...(meta.test && { recordedIn: meta.test }),
          ...(test && { test }),
          reason,
        });
    }
    if (strict) this.deps.fail('CASSETTE_STALE', message);
    else {
      const seen = this.warned.get(fixture) ?? new Set<string>();
      if (!seen.has(reason)) {
        seen.add(reason);
        this.warned.set(fixture, seen);
        console.warn(message);
      }
    }
  }
}
