/** OpenAI Chat Completions: what the API checks in `messages` and `tools` before it answers. */
import { openaiError } from '../providers/openai-chat/errors';
import type { ContractRule } from './rules';
import { openaiToolProblem } from './tool-definitions';
import { type RequestFacts, type Violation, violation } from './violation';

const roleParam = (i: number) => `messages.[${i}].role`;

/**
 * An assistant message with `tool_calls` must be followed, directly, by one `tool` message
 * per call; a `tool` message anywhere else answers nothing.
 */
function toolResults(messages: unknown[]): Violation | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Record<string, any> | null;
    if (m?.role === 'tool')
      return violation(
        'tool-results',
        `messages[${i}]`,
        `the tool message for ${JSON.stringify(m.tool_call_id)} does not follow an assistant message that made that call`,
        openaiError(
          400,
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          roleParam(i),
        ),
        i,
      );
    if (m?.role !== 'assistant' || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) continue;
    const pending = new Map<string, string>();
    for (const call of m.tool_calls) pending.set(String(call?.id), String(call?.function?.name ?? ''));
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && (messages[j] as { role?: unknown } | null)?.role === 'tool'; j++) {
      const id = String((messages[j] as { tool_call_id?: unknown }).tool_call_id);
      if (!pending.has(id) && !answered.has(id))
        return violation(
          'tool-results',
          `messages[${j}]`,
          `the tool message answers ${JSON.stringify(id)}, which the assistant message at messages[${i}] did not call`,
          openaiError(
            400,
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            roleParam(j),
          ),
          j,
        );
      pending.delete(id);
      answered.add(id);
    }
    if (pending.size > 0) {
      const missing = [...pending.keys()];
      const at = j < messages.length ? j : i;
      return violation(
        'tool-results',
        `messages[${i}]`,
        `the assistant message calls ${missing.map((id) => `${id} (${pending.get(id)})`).join(', ')}, but no tool message answers ${missing.length > 1 ? 'them' : 'it'} before ${j < messages.length ? `messages[${j}] (${String((messages[j] as { role?: unknown } | null)?.role)})` : 'the end of the request'}`,
        openaiError(
          400,
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
          roleParam(at),
        ),
        i,
      );
    }
    i = j - 1;
  }
  return undefined;
}

export function checkChat(facts: RequestFacts, on: (rule: ContractRule) => boolean): Violation | undefined {
  const { body } = facts;
  if (on('tool-definitions')) {
    const problem = openaiToolProblem(body.tools, true);
    if (problem) return violation('tool-definitions', problem.at, problem.problem, problem.error);
  }
  if (on('tool-results') && Array.isArray(body.messages)) return toolResults(body.messages);
  return undefined;
}
