/**
 * One socket session as the test file saw it, for the trace: what the protocol noted (the user's
 * input, tool outputs, interruptions), the model calls its turns made and the events it refused, in
 * the order they happened. Only notes are taken while the session runs; its turns are read from
 * them when a trace is written, from the model calls as they stand then, so an answer cut after it
 * was logged (a barge-in, a truncation) shows what reached the user, never the fixture's whole text.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { NeutralError } from '../conversation';
import type { ModelCall } from '../model/call';
import type { SessionNote, TurnOutcome } from '../sockets/protocol';
import type { SessionEvidence, SessionTurnEvidence } from '../trace/evidence';

type Entry =
  | { at: number; note: SessionNote }
  | { at: number; call: ModelCall }
  | { at: number; refused: NeutralError }
  | { at: number; closed: true };

/** How the socket ended, as the file's socket record has it. */
export interface SessionEnd {
  closeCode?: number;
  closeReason?: string;
  closedBy?: 'client' | 'server' | 'file end';
  dropped?: boolean;
}

/** The session whose message is being answered, in that answer's async context. */
const asking = new AsyncLocalStorage<SessionLog>();

/**
 * A model call is logged: the session whose message asked for it (a Realtime or Live turn, a
 * Responses WebSocket `response.create` served through the HTTP pipeline) notes it as its own.
 */
export function noteSessionCall(call: ModelCall): void {
  asking.getStore()?.call(call);
}

/** Turns a trace keeps of one session: the first and the latest. */
const KEPT_TURNS = 100;

/** A cut that is the wire's doing, not the user's: it is a fault of the turn. */
const FAULT_CUTS = new Set(['truncated', 'disconnected', 'malformed', 'stream_error']);

export class SessionLog {
  readonly startedAt = performance.now();
  endedAt: number | undefined;
  private readonly entries: Entry[] = [];
  private calls = 0;
  /** The model call that answered each turn outcome, so a later cut names its turn. */
  private readonly callOf = new WeakMap<TurnOutcome, ModelCall>();

  constructor(
    readonly url: string,
    readonly protocol: string,
  ) {}

  note(note: SessionNote): void {
    this.entries.push({ at: performance.now(), note });
  }

  /** Runs `fn` (the answer to one of the session's messages) so that the model calls it logs are the session's. */
  asks<T>(fn: () => T): T {
    return asking.run(this, fn);
  }

  /** A model call of the session, as it is logged. */
  call(call: ModelCall): void {
    this.calls++;
    this.entries.push({ at: performance.now(), call });
  }

  refused(error: NeutralError): void {
    this.entries.push({ at: performance.now(), refused: error });
  }

  /** The socket closed, or dropped (noted once, at the first of the two). */
  closed(): void {
    if (this.endedAt !== undefined) return;
    this.endedAt = performance.now();
    this.entries.push({ at: this.endedAt, closed: true });
  }

  /** Whether a turn began or a model call was made at `time` or later (not only a late note on an earlier turn). */
  activeSince(time: number): boolean {
    return this.entries.some((e) => e.at >= time && ('call' in e || ('note' in e && e.note.kind === 'user')));
  }

  /**
   * Answers a turn through `answer`, and remembers the call it logged for the outcome: the call is
   * logged before `answer` first waits, so the one logged since it began is this turn's.
   */
  async answering(answer: () => Promise<TurnOutcome>): Promise<TurnOutcome> {
    const before = this.calls;
    const pending = answer();
    const entry = this.calls > before ? this.entries.findLast((e) => 'call' in e) : undefined;
    const outcome = await pending;
    if (entry && 'call' in entry) this.callOf.set(outcome, entry.call);
    return outcome;
  }

  evidence(index: number, end: SessionEnd): SessionEvidence {
    const turns = this.turns(end);
    const kept =
      turns.length <= KEPT_TURNS
        ? turns
        : [...turns.slice(0, KEPT_TURNS / 2), ...turns.slice(turns.length - KEPT_TURNS / 2)];
    const endedAt = this.endedAt ?? performance.now();
    return {
      index,
      url: this.url,
      protocol: this.protocol,
      ...(end.closeCode !== undefined && { closeCode: end.closeCode }),
      ...(end.closeReason && { closeReason: end.closeReason }),
      ...(end.closedBy && { closedBy: end.closedBy }),
      ...(end.dropped && { dropped: true }),
      turns: kept,
      ...(kept.length < turns.length && { omittedTurns: turns.length - kept.length }),
      startedAt: this.startedAt,
      durationMs: Math.max(0, endedAt - this.startedAt),
    };
  }

  /** The session's turns: each opens with the user's input, and holds what followed until the next. */
  private turns(end: SessionEnd): SessionTurnEvidence[] {
    const turns: Building[] = [];
    const turnOfCall = new Map<ModelCall, Building>();
    let current: Building | undefined;
    const open = (at: number, user?: Building['user']): Building => {
      const turn: Building = { user, at, last: at, calls: [], outputs: new Map(), faults: [] };
      turns.push(turn);
      return turn;
    };
    for (const entry of this.entries) {
      if ('note' in entry && entry.note.kind === 'user') {
        current = open(entry.at, { via: entry.note.via, text: entry.note.text });
        continue;
      }
      if ('closed' in entry) {
        if (current && (end.dropped || (end.closedBy === 'server' && end.closeCode !== 1000)))
          current.closing = closing(end);
        continue;
      }
      current ??= open(entry.at);
      const turn = current;
      turn.last = Math.max(turn.last, entry.at);
      if ('call' in entry) {
        turn.calls.push(entry.call);
        turnOfCall.set(entry.call, turn);
      } else if ('refused' in entry) {
        turn.faults.push(`refused: ${entry.refused.message}`);
      } else if (entry.note.kind === 'tool output') {
        turn.outputs.set(entry.note.callId, entry.note.output);
      } else if (entry.note.kind === 'interrupted' || entry.note.kind === 'truncated') {
        // A truncation can come after the user's next turn began: it belongs to the answer it cut.
        const call = entry.note.turn && this.callOf.get(entry.note.turn);
        const cut = (call && turnOfCall.get(call)) ?? turn;
        const note = entry.note;
        cut.interrupted = {
          by: note.kind === 'interrupted' ? note.by : (cut.interrupted?.by ?? 'client'),
          ...(note.kind === 'truncated' && note.heardMs !== undefined
            ? { heardMs: note.heardMs }
            : cut.interrupted?.heardMs !== undefined && { heardMs: cut.interrupted.heardMs }),
        };
      }
    }
    return turns.map((turn, index) => finished(turn, index, turns[index + 1]));
  }
}

interface Building {
  user?: SessionTurnEvidence['user'];
  at: number;
  last: number;
  calls: ModelCall[];
  outputs: Map<string, unknown>;
  interrupted?: { by: 'user' | 'client'; heardMs?: number };
  faults: string[];
  /** The socket ended badly in this turn (it dropped, or the server closed it on a fault). */
  closing?: string;
}

function closing(end: SessionEnd): string {
  const reason = end.closeReason ? `: ${end.closeReason}` : '';
  return end.dropped
    ? 'the socket dropped (1006, no close frame)'
    : `the server closed the socket (${end.closeCode ?? 'no code'}${reason})`;
}

/** The reply as it reached the client: none of a cut one that kept no part of it. */
function reached(call: ModelCall): ModelCall['response'] {
  return call.cut && call.whole !== undefined && call.response === call.whole ? undefined : call.response;
}

/** A turn as the trace keeps it, read from its calls as they stand now. */
function finished(turn: Building, index: number, next: Building | undefined): SessionTurnEvidence {
  const said: string[] = [];
  const toolCalls: SessionTurnEvidence['toolCalls'] = [];
  const faults = [...turn.faults];
  let heard: { chars: number; of: number } | undefined;
  let end = turn.last;
  for (const call of turn.calls) {
    end = Math.max(end, call.startedAt + call.durationMs);
    const reply = reached(call);
    if (reply?.content) said.push(reply.content);
    for (const t of reply?.toolCalls ?? []) {
      const output = turn.outputs.get(t.id) ?? next?.outputs.get(t.id);
      toolCalls.push({
        id: t.id,
        name: t.name,
        arguments: t.arguments,
        ...(output !== undefined && { output }),
        at: said.join(' ').length,
      });
    }
    if (call.unmatched) faults.push('unmatched: no fixture answered the turn');
    if (call.error) faults.push(`error ${call.error.status} ${call.error.type}: ${call.error.message}`);
    else if (call.streamError) faults.push(`error event: ${call.streamError.message}`);
    const cut = call.cut;
    if (cut && FAULT_CUTS.has(cut.reason) && !(cut.reason === 'stream_error' && call.streamError))
      faults.push(
        `cut: ${cut.reason} (${cut.delivered}${cut.of === undefined ? '' : ` of ${cut.of}`} events reached the client)`,
      );
    if (cut?.reason === 'aborted') {
      const of = (call.whole ?? reply)?.content?.length ?? 0;
      heard = { chars: reply?.content?.length ?? 0, of };
      // Cut with no interruption noted: the client went away mid-answer.
      if (!turn.interrupted) faults.push('aborted: the client went away before the answer ended');
    }
  }
  if (turn.closing) faults.push(turn.closing);
  const interrupted = turn.interrupted && {
    ...turn.interrupted,
    ...(heard && { heardChars: heard.chars, ofChars: heard.of }),
  };
  return {
    index,
    ...(turn.user && { user: turn.user }),
    ...(said.length > 0 && { assistant: said.join(' ') }),
    modelCalls: turn.calls.map((c) => c.index),
    toolCalls,
    ...(interrupted && { interrupted }),
    ...(faults.length > 0 && { faults }),
    startedAt: turn.at,
    durationMs: Math.max(0, end - turn.at),
  };
}
