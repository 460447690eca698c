/**
 * How much of a test's evidence a trace keeps, so a test that made 20,000 model calls or
 * passed a megabyte prompt still writes a trace people can open: each payload (a model
 * call, a tool call, an operation, a run's input and output) fits a byte budget, and the
 * whole trace fits another, keeping its first and last steps. Whatever is left out is
 * said where it was: long strings end with `… [N more characters left out]`, long lists
 * and objects hold a `[N more items left out]` entry, a model call counts the messages it
 * dropped, and the trace counts the steps it dropped.
 */

export interface TraceLimits {
  /** Characters a string keeps. */
  maxString: number;
  /** Items a list keeps. */
  maxItems: number;
  /** Keys an object of free-form data keeps (more than any of the trace's own records have). */
  maxKeys: number;
  /** Messages a model call's request keeps: its system messages and the latest others. */
  maxMessages: number;
  /** Bytes (JSON) of one payload: a model call, a tool call, an operation, a run's own fields. */
  maxPayloadBytes: number;
  /** Bytes of a written trace (its spans as indented JSON); the timeline comes out smaller. */
  maxFileBytes: number;
  /** Steps (runs, model calls, tool calls, operations) a trace keeps at most. */
  maxSteps: number;
}

export const TRACE_LIMITS: TraceLimits = {
  maxString: 8_000,
  maxItems: 100,
  maxKeys: 200,
  maxMessages: 40,
  maxPayloadBytes: 64 * 1024,
  maxFileBytes: 6 * 1024 * 1024,
  maxSteps: 4_000,
};

/** What a trace left out, so a reader knows the steps they see are not all there were. */
export interface Omissions {
  runs: number;
  modelCalls: number;
  toolCalls: number;
  operations: number;
  /** Requests the test's own msw handlers answered (absent where none were left out). */
  httpRequests?: number;
  /** Let go by `understudy.model.reset()` during the test. */
  released?: { runs: number; modelCalls: number };
  /** The budgets that made the cut. */
  limits: { maxPayloadBytes: number; maxFileBytes: number; maxSteps: number };
}

/** Limits for a payload that came out over its budget: each pass keeps a quarter; undefined at the floor. */
export function tighter(l: TraceLimits): TraceLimits | undefined {
  const next = {
    ...l,
    maxString: Math.max(200, Math.floor(l.maxString / 4)),
    maxItems: Math.max(5, Math.floor(l.maxItems / 4)),
    maxMessages: Math.max(2, Math.floor(l.maxMessages / 4)),
  };
  const same =
    next.maxString === l.maxString && next.maxItems === l.maxItems && next.maxMessages === l.maxMessages;
  return same ? undefined : next;
}

/**
 * The text cut to `max` characters, saying how many were left out. It is scrubbed before
 * the cut, so the cut never leaves the start of a secret behind.
 */
export function cutText(text: string, max: number, scrub: (text: string) => string): string {
  if (text.length <= max) return text;
  const clean = scrub(text);
  if (clean.length <= max) return clean;
  return `${clean.slice(0, max)}… [${clean.length - max} more characters left out]`;
}

export const itemsLeftOut = (n: number) => `[${n} more item${n === 1 ? '' : 's'} left out]`;

/** A list cut to `max` items, keeping its start and end, with a note where the middle was. */
export function cutList<T>(items: readonly T[], max: number): Array<T | string> {
  if (items.length <= max) return [...items];
  const tail = Math.floor((max - 1) / 2);
  const head = max - 1 - tail;
  return [
    ...items.slice(0, head),
    itemsLeftOut(items.length - head - tail),
    ...items.slice(items.length - tail),
  ];
}

/** The messages a request keeps: every system message and the latest others, with the count dropped. */
export function keptMessages<T extends { role: string }>(
  messages: readonly T[],
  max: number,
): { messages: T[]; omitted: number } {
  if (messages.length <= max) return { messages: [...messages], omitted: 0 };
  const system = messages.filter((m) => m.role === 'system').slice(0, Math.max(1, Math.floor(max / 4)));
  const rest = messages.filter((m) => m.role !== 'system');
  const latest = rest.slice(Math.max(0, rest.length - (max - system.length)));
  const kept = new Set<T>([...system, ...latest]);
  return { messages: messages.filter((m) => kept.has(m)), omitted: messages.length - kept.size };
}

/** A payload built within its byte budget, tightening the limits until it fits (or cannot shrink more). */
export function fitted<P>(
  limits: TraceLimits,
  build: (limits: TraceLimits) => P,
): { payload: P; bytes: number } {
  let l = limits;
  for (;;) {
    const payload = build(l);
    const bytes = JSON.stringify(payload)?.length ?? 0;
    const next: TraceLimits | undefined = bytes > limits.maxPayloadBytes ? tighter(l) : undefined;
    if (!next) return { payload, bytes };
    l = next;
  }
}

/**
 * Which steps a trace keeps: from both ends inward (the start of a test and how it ended
 * matter most), until the byte budget or the step count is spent.
 */
export function keptSteps(
  count: number,
  bytesOf: (index: number) => number,
  limits: Pick<TraceLimits, 'maxFileBytes' | 'maxSteps'>,
): Set<number> {
  const kept = new Set<number>();
  let total = 0;
  for (let front = 0, back = count - 1, fromFront = true; front <= back && kept.size < limits.maxSteps; ) {
    const index = fromFront ? front : back;
    const bytes = bytesOf(index);
    if (total + bytes > limits.maxFileBytes) break;
    total += bytes;
    kept.add(index);
    if (fromFront) front++;
    else back--;
    fromFront = !fromFront;
  }
  return kept;
}

const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;
const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`;

/** One sentence on what a trace left out, for the timeline and the terminal report. */
export function describeOmissions(o: Partial<Omissions>): string {
  const parts: string[] = [];
  const steps = [
    [o.runs ?? 0, 'run'],
    [o.modelCalls ?? 0, 'model call'],
    [o.toolCalls ?? 0, 'tool call'],
    [o.operations ?? 0, 'operation'],
    [o.httpRequests ?? 0, 'HTTP request'],
  ] as const;
  const dropped = steps.filter(([n]) => n > 0).map(([n, what]) => count(n, what));
  if (dropped.length > 0) {
    const l = o.limits;
    parts.push(
      `This trace leaves out ${dropped.length > 1 ? `${dropped.slice(0, -1).join(', ')} and ${dropped.at(-1)}` : dropped[0]} from the middle of the test` +
        (l
          ? ` (a trace keeps ${size(l.maxFileBytes)} and ${count(l.maxSteps, 'step')} at most, ${size(l.maxPayloadBytes)} per payload).`
          : '.'),
    );
  }
  if (o.released && (o.released.runs > 0 || o.released.modelCalls > 0))
    parts.push(
      `understudy.model.reset() let go of ${count(o.released.modelCalls, 'model call')} and ${count(o.released.runs, 'run')} made before it.`,
    );
  return parts.join(' ');
}
