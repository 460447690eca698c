/**
 * A socket session and its turns in words, read from their spans' fields, for both views (the
 * terminal tree and the HTML timeline): a voice turn reads like a conversation, "user said X,
 * assistant said Y (interrupted by the user after N ms of audio, at character K of M), called Z".
 */
import type { TraceFields } from './attributes';
import { parsed } from './read';

export interface TurnToolCall {
  id: string;
  name: string;
  arguments?: string;
  output?: unknown;
  /** Characters of the assistant's text said before the call. */
  at?: number;
}

export interface TurnView {
  index: number;
  /** `user said “…”`, `user typed “…”`, `user spoke (not made out)`; undefined when no input opened it. */
  user?: string;
  assistant?: string;
  toolCalls: TurnToolCall[];
  /** `interrupted by the user after 160 ms of audio, at character 4 of 56`. */
  interrupted?: string;
  faults: string[];
  modelCalls: number[];
  outcome: string;
}

const quoted = (text: string) => `“${text}”`;

export function turnView(f: TraceFields): TurnView {
  const via = f.turnInputVia;
  const user =
    via === undefined
      ? undefined
      : f.turnUser === undefined
        ? 'user spoke (not made out)'
        : `user ${via === 'audio' ? 'said' : 'typed'} ${quoted(f.turnUser)}`;
  const calls = parsed(f.turnModelCalls);
  const tools = parsed(f.turnToolCalls);
  return {
    index: f.turnIndex ?? 0,
    ...(user && { user }),
    ...(f.turnAssistant !== undefined && { assistant: f.turnAssistant }),
    toolCalls: Array.isArray(tools) ? (tools as TurnToolCall[]) : [],
    ...(f.turnInterruptedBy !== undefined && { interrupted: interruption(f) }),
    faults: [...(f.turnFaults ?? [])],
    modelCalls: Array.isArray(calls) ? calls.filter((c): c is number => typeof c === 'number') : [],
    outcome: f.outcome ?? '',
  };
}

function interruption(f: TraceFields): string {
  const by = f.turnInterruptedBy === 'user' ? 'by the user' : 'by the client';
  const after = f.turnHeardMs === undefined ? '' : ` after ${f.turnHeardMs} ms of audio`;
  const at =
    f.turnHeardChars === undefined
      ? ''
      : `, at character ${f.turnHeardChars}${f.turnSaidChars === undefined ? '' : ` of ${f.turnSaidChars}`}`;
  return `interrupted ${by}${after}${at}`;
}

/** One line of the assistant's part of a turn: what it said, or a tool call it made. */
export type AssistantLine = { said: string; cut: boolean } | { call: TurnToolCall };

/**
 * The assistant's part of a turn in the order it happened: its text, split where it called a tool;
 * the last of it says how it was cut off (or that nothing was said before it was).
 */
export function assistantLines(t: TurnView): AssistantLine[] {
  const text = t.assistant ?? '';
  const lines: AssistantLine[] = [];
  let from = 0;
  // The text of each model call is joined by a space: a part after a call starts past it.
  const part = (to?: number) => text.slice(from, to).replace(from > 0 ? /^ / : /^/, '');
  for (const call of t.toolCalls) {
    const at = Math.min(text.length, Math.max(from, call.at ?? from));
    const said = part(at);
    if (said.trim()) lines.push({ said: `assistant said ${quoted(said)}`, cut: false });
    lines.push({ call });
    from = at;
  }
  const rest = part();
  const cut = t.interrupted ? ` (${t.interrupted})` : '';
  if (rest.trim()) lines.push({ said: `assistant said ${quoted(rest)}${cut}`, cut: cut !== '' });
  else if (cut) lines.push({ said: `assistant said nothing more${cut}`, cut: true });
  return lines;
}

/** One tool call of a turn: `called lookup_order {"id":7} → {"status":"shipped"}`. */
export function toolLine(call: TurnToolCall, short: (value: unknown) => string): string {
  const output = call.output === undefined ? ' (no output sent back)' : ` → ${short(call.output)}`;
  return `called ${call.name} ${short(call.arguments ?? '')}${output}`;
}

/** How a session ended: `closed by the client (1000)`, `dropped (1006, no close frame)`, `still open`. */
export function closing(f: TraceFields): string {
  if (f.sessionDropped)
    return `dropped${f.sessionClosedBy === 'server' ? ' by the server' : ''} (1006, no close frame)`;
  if (f.sessionCloseCode === undefined) return 'still open when the test ended';
  const by =
    f.sessionClosedBy === 'file end'
      ? 'at the end of the test file'
      : `by the ${f.sessionClosedBy ?? 'client'}`;
  const reason = f.sessionCloseReason ? `: ${f.sessionCloseReason}` : '';
  return `closed ${by} (${f.sessionCloseCode}${reason})`;
}
