/**
 * Ollama's native `/api/chat`: a `tool` message answers a call of the assistant message before it.
 * Ollama itself renders any message list into the model's prompt template and answers; a result
 * that answers no call, or more results than calls, is an agent's bug it would never report.
 */
import { ollamaError } from '../providers/ollama/errors';
import type { ContractRule } from './rules';
import { type RequestFacts, type Violation, violation } from './violation';

function toolResults(messages: unknown[]): Violation | undefined {
  let open = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Record<string, any> | null;
    if (m?.role === 'assistant') {
      open = Array.isArray(m.tool_calls) ? m.tool_calls.length : 0;
      continue;
    }
    if (m?.role !== 'tool') {
      open = 0;
      continue;
    }
    if (open > 0) {
      open--;
      continue;
    }
    const problem = `the tool message${typeof m.tool_name === 'string' ? ` for ${JSON.stringify(m.tool_name)}` : ''} answers no call: no assistant message with tool_calls left one unanswered before it`;
    return violation(
      'tool-results',
      `messages[${i}]`,
      problem,
      ollamaError(400, `messages[${i}]: ${problem}`),
      i,
    );
  }
  return undefined;
}

export function checkOllamaChat(
  facts: RequestFacts,
  on: (rule: ContractRule) => boolean,
): Violation | undefined {
  const { body } = facts;
  if (on('tool-results') && Array.isArray(body.messages)) return toolResults(body.messages);
  return undefined;
}
