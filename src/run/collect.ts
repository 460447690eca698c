import type { NeutralMessage } from '../conversation';
import type { ModelCall } from '../model/call';
import { argumentsObject } from '../providers/partial-json';
import type { TerminalState, ToolCall } from './types';

function parseArguments(raw: string): Record<string, unknown> {
  try {
    const value = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : { value };
  } catch {
    return { _raw: raw };
  }
}

function parseResult(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Whether a tool result the agent sent back is an error report: a JSON object with an `error`,
 * the shape agents send where the protocol has no error flag (Chat Completions, Responses) and
 * that Gemini's decoder reads as an error too. A flagged result (`is_error`, a Bedrock `status`)
 * is one whatever its text.
 */
function reportsError(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const error = (value as { error?: unknown }).error;
  return error !== undefined && error !== null && error !== false;
}

/**
 * The tool calls the model asked for, in order, each joined with the result a later
 * request carried back (matched by call id), so a trajectory includes outcomes. They are the
 * calls that reached the agent: a reply the wire cut short lists only those that arrived, and
 * one whose arguments never ended is `incomplete`, with the arguments that did arrive, and is
 * never answered.
 */
export function toolCallsOf(calls: readonly ModelCall[]): ToolCall[] {
  const results = new Map<string, NeutralMessage>();
  for (const call of calls) {
    for (const m of call.conversation.messages)
      if (m.role === 'tool' && m.toolCallId) results.set(m.toolCallId, m);
  }
  const out: ToolCall[] = [];
  for (const [position, call] of calls.entries()) {
    for (const c of call.response?.toolCalls ?? []) {
      if (c.incomplete) {
        out.push({
          id: c.id,
          name: c.name,
          arguments: argumentsObject(c.arguments),
          rawArguments: c.arguments,
          modelCallIndex: position,
          fileModelCallIndex: call.index,
          answered: false,
          incomplete: true,
        });
        continue;
      }
      const result = results.get(c.id);
      const tc: ToolCall = {
        id: c.id,
        name: c.name,
        arguments: parseArguments(c.arguments),
        rawArguments: c.arguments,
        modelCallIndex: position,
        fileModelCallIndex: call.index,
        answered: result !== undefined,
      };
      if (result) {
        // What the agent sent back is the result, error or not; `error` says it reported a failure.
        tc.result = parseResult(result.text);
        if (result.isError || reportsError(tc.result)) tc.error = tc.result;
      }
      out.push(tc);
    }
  }
  return out;
}

/**
 * Whether the agent ran a call the model requested: it sent the result back, or a world
 * operation served it (`operations`, set by ./link.ts). The matchers' "called" is this.
 */
export function ranByAgent(call: ToolCall): boolean {
  return call.answered || (call.operations?.length ?? 0) > 0;
}

/**
 * The last assistant text the model sent whole. A reply the wire cut short is no final
 * message, and neither is an earlier one: the agent's last exchange did not end with it.
 */
export function finalMessageOf(calls: readonly ModelCall[]): string | undefined {
  for (let i = calls.length - 1; i >= 0; i--) {
    if (calls[i].cut) return undefined;
    const content = calls[i].response?.content;
    if (content) return content;
  }
  return undefined;
}

/**
 * 'errored' when the agent threw, 'timed_out' past its deadline, 'failed' when it returned
 * but its last model exchange ended in an error, a reply the wire cut short, or tool calls
 * nobody answered, else 'succeeded'. An agent may name its own state (e.g. 'needs_approval')
 * through the context.
 */
export function terminalStateOf(
  calls: readonly ModelCall[],
  outcome: 'returned' | 'threw' | 'timed_out',
  declared: TerminalState | undefined,
): TerminalState {
  if (declared) return declared;
  if (outcome === 'threw') return 'errored';
  if (outcome === 'timed_out') return 'timed_out';
  const last = calls[calls.length - 1];
  if (!last) return 'succeeded';
  if (last.error || last.unmatched || last.cut) return 'failed';
  if (last.response && last.response.toolCalls.length > 0) return 'failed';
  return 'succeeded';
}
