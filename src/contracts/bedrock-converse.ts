/** Amazon Bedrock Converse: what the API checks in `messages` and `toolConfig` before it answers. */
import type { NeutralError } from '../conversation';
import type { ContractRule } from './rules';
import { type RequestFacts, type Violation, violation } from './violation';

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const validation = (message: string): NeutralError => ({ status: 400, type: 'ValidationException', message });

const blocksOf = (m: unknown): unknown[] => (isObject(m) && Array.isArray(m.content) ? m.content : []);
const useIds = (m: unknown) =>
  blocksOf(m).flatMap((b) => (isObject(b) && isObject(b.toolUse) ? [String(b.toolUse.toolUseId)] : []));
const resultIds = (m: unknown) =>
  blocksOf(m).flatMap((b) => (isObject(b) && isObject(b.toolResult) ? [String(b.toolResult.toolUseId)] : []));

/**
 * The message after an assistant turn with `toolUse` blocks carries a `toolResult` for each of
 * them; a user turn carries no more results than the turn before it made calls, and none for
 * a call it did not make. Bedrock's own words, with its 0-based message index.
 */
function toolResults(messages: unknown[]): Violation | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const results = resultIds(m);
    const previous = messages[i - 1];
    const uses = isObject(previous) && previous.role === 'assistant' ? useIds(previous) : [];
    if (isObject(m) && m.role === 'user' && results.length > 0) {
      const stray = results.find((id) => !uses.includes(id));
      if (results.length > uses.length || stray !== undefined)
        return violation(
          'tool-results',
          `messages[${i}]`,
          stray !== undefined && results.length <= uses.length
            ? `the toolResult for ${JSON.stringify(stray)} answers no toolUse of the assistant turn before it`
            : `${results.length} toolResult block(s) answer ${uses.length} toolUse block(s) of the turn before`,
          validation(
            `The number of toolResult blocks at messages.${i}.content exceeds the number of toolUse blocks of previous turn.`,
          ),
          i,
        );
    }
    if (!isObject(m) || m.role !== 'assistant' || i + 1 >= messages.length) continue;
    const calls = useIds(m);
    if (calls.length === 0) continue;
    const answered = new Set(resultIds(messages[i + 1]));
    const missing = calls.filter((id) => !answered.has(id));
    if (missing.length > 0)
      return violation(
        'tool-results',
        `messages[${i}]`,
        `the assistant turn calls ${missing.join(', ')}, but messages[${i + 1}] has no toolResult for ${missing.length > 1 ? 'them' : 'it'}`,
        validation(
          `Expected toolResult blocks at messages.${i + 1}.content for the following Ids: ${missing.join(', ')}`,
        ),
        i,
      );
  }
  return undefined;
}

/** Tool names Bedrock accepts: `[a-zA-Z0-9_-]`, 1 to 64 characters. */
function toolDefinitions(config: unknown): Violation | undefined {
  const tools = isObject(config) && Array.isArray(config.tools) ? config.tools : [];
  for (let i = 0; i < tools.length; i++) {
    const name = isObject(tools[i]) && isObject(tools[i].toolSpec) ? tools[i].toolSpec.name : undefined;
    if (typeof name !== 'string' || /^[a-zA-Z0-9_-]{1,64}$/.test(name)) continue;
    return violation(
      'tool-definitions',
      `toolConfig.tools[${i}].toolSpec.name`,
      `the tool name ${JSON.stringify(name)} is not 1 to 64 characters of [a-zA-Z0-9_-]`,
      validation(
        `1 validation error detected: Value '${name}' at 'toolConfig.tools.${i + 1}.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`,
      ),
    );
  }
  return undefined;
}

export function checkConverse(
  facts: RequestFacts,
  on: (rule: ContractRule) => boolean,
): Violation | undefined {
  const { body } = facts;
  if (on('tool-definitions')) {
    const broken = toolDefinitions(body.toolConfig);
    if (broken) return broken;
  }
  if (on('tool-results') && Array.isArray(body.messages)) return toolResults(body.messages);
  return undefined;
}
