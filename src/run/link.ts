/**
 * Links the tool calls a model requested to the world operations that served them.
 *
 * The rule: an agent executes the tool calls of a model response after that response and
 * before its next model request. So an operation belongs to the tool calls of the run's
 * last model call before it (its window), and among those to a call whose tool name is
 * one of the operation's tool names (`toolNames` in the world file; by default the
 * operation id, also with '.' as '_'). When several calls in the window share the name
 * (parallel calls), the operation goes to the call whose arguments agree with its input
 * on every shared top-level key; failing that, to the call with the fewest operations so
 * far, in order. Every operation of a retry loop lands on the call that caused it.
 * Operations in no window, or with no matching name, stay unlinked.
 */
import type { RunOperationEntry } from '../world/door';
import { deepEqual } from '../world/values';
import type { RunOperation, ToolCall } from './types';

function agrees(args: Record<string, unknown>, input: unknown): boolean {
  if (input === null || typeof input !== 'object') return false;
  const shared = Object.keys(args).filter((k) => Object.hasOwn(input, k));
  return shared.length > 0 && shared.every((k) => deepEqual(args[k], (input as Record<string, unknown>)[k]));
}

/** The world's own record behind each operation a run lists (the run's is a copy with its timing). */
const records = new WeakMap<object, object>();

/** The world's record `operation` copies, so it counts once whether read from the run or the world. */
export function recordOf(operation: object): object {
  return records.get(operation) ?? operation;
}

export function linkOperations(toolCalls: ToolCall[], entries: readonly RunOperationEntry[]): RunOperation[] {
  const operations: RunOperation[] = entries.map((e) => {
    const operation = { ...e.record, startedAt: e.startedAt, durationMs: e.durationMs };
    records.set(operation, e.record);
    return operation;
  });
  if (entries.length === 0) return operations;
  const linked = new Map<ToolCall, number[]>(toolCalls.map((c) => [c, []]));
  entries.forEach((entry, i) => {
    const candidates = toolCalls.filter(
      (c) => c.fileModelCallIndex === entry.afterModelCall && entry.toolNames.includes(c.name),
    );
    if (candidates.length === 0) return;
    const fewest = (list: ToolCall[]) =>
      list.reduce((best, c) => (linked.get(c)!.length < linked.get(best)!.length ? c : best), list[0]);
    const agreeing = candidates.filter((c) => agrees(c.arguments, entry.record.input));
    const call =
      candidates.length === 1 ? candidates[0] : fewest(agreeing.length > 0 ? agreeing : candidates);
    linked.get(call)!.push(entry.record.seq);
    operations[i].toolCallId = call.id;
  });
  for (const call of toolCalls) call.operations = linked.get(call)!;
  return operations;
}
