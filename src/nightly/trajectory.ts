/**
 * A test's trajectory as the nightly layer compares it: the tools the model asked for, in order,
 * each with the shape of its arguments (keys and types, never values), and the state the model
 * ended in. Built the same way from a live run's model replies and from a cassette's recorded
 * replies, so the two compare; prose never enters it.
 */
import type { Fixture } from '../fixtures/types';

export interface TrajectoryStep {
  tool: string;
  /** The arguments' shape: `{orderId:string}`, `[number]`, `string`… */
  shape: string;
}

export interface Trajectory {
  tools: TrajectoryStep[];
  /** `stop`, `tool_calls`, `length`, `refusal`, `cut`, `error:<status>`, or `no-call`. */
  terminal: string;
}

/** One model call as the trajectory reads it. */
export interface TrajectoryCall {
  reply?:
    | {
        toolCalls?: ReadonlyArray<{ name: string; arguments: unknown }>;
        finishReason?: string;
        refusal?: string;
      }
    | undefined;
  error?: { status: number } | undefined;
  cut?: boolean;
}

/** The shape of a JSON value: object keys sorted, each with its shape; an array's distinct item shapes. */
export function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${[...new Set(value.map(shapeOf))].sort().join('|')}]`;
  if (typeof value === 'object')
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${k}:${shapeOf((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return typeof value;
}

/** Arguments as they arrive: JSON text (parsed when it is JSON) or a value. */
export function argumentsShape(args: unknown): string {
  if (typeof args !== 'string') return shapeOf(args);
  try {
    return shapeOf(JSON.parse(args));
  } catch {
    return 'text';
  }
}

export function trajectoryOf(calls: readonly TrajectoryCall[]): Trajectory {
  const tools = calls.flatMap((c) =>
    (c.reply?.toolCalls ?? []).map((t) => ({ tool: t.name, shape: argumentsShape(t.arguments) })),
  );
  const last = calls.at(-1);
  const terminal = !last
    ? 'no-call'
    : last.error
      ? `error:${last.error.status}`
      : last.cut
        ? 'cut'
        : last.reply?.refusal !== undefined
          ? 'refusal'
          : (last.reply?.finishReason ?? 'no-reply');
  return { tools, terminal };
}

/** The trajectory a cassette recorded for one test: its fixtures' replies, in the order they were recorded. */
export function recordedTrajectory(fixtures: readonly Fixture[]): Trajectory {
  return trajectoryOf(
    fixtures.map((f) => {
      const r = f.response;
      if (r.error) return { error: { status: r.error.status ?? 500 } };
      const toolCalls = r.toolCalls ?? [];
      return {
        reply: {
          toolCalls,
          finishReason: r.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
          ...(r.refusal !== undefined && { refusal: r.refusal }),
        },
      };
    }),
  );
}

/** The words a report counts trajectories by: the tool sequence and the terminal state. */
export function trajectoryKey(t: Trajectory): string {
  return `${t.tools.map((s) => s.tool).join(' → ') || '(no tool)'} ⇒ ${t.terminal}`;
}
