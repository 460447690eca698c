/** Anthropic Messages: what the API checks in `messages`, `system` and `tools` before it answers. */
import { anthropicError } from '../providers/anthropic-messages/errors';
import { loadThread } from '../providers/anthropic-messages/threads';
import { issuedFor, thinkingBeforeTool } from '../providers/tokens';
import type { ContractRule } from './rules';
import { anthropicToolProblem } from './tool-definitions';
import { type RequestFacts, type Violation, violation } from './violation';

type Block = Record<string, any>;

const NONE: Block[] = [];
const NON_SPACE = /\S/;

/** A message's content blocks (the array as sent: entries may be anything, so read them with `?.`). */
const blocksOf = (m: unknown): Block[] => {
  const content = (m as { content?: unknown } | null)?.content;
  return Array.isArray(content) ? content : NONE;
};

const roleOf = (m: unknown) => (m as { role?: unknown } | null)?.role;

/** Empty and whitespace-only text blocks; an empty message. The final assistant message (a prefill) may be empty. */
function emptyText(body: Record<string, any>): Violation | undefined {
  if (Array.isArray(body.system))
    for (let j = 0; j < body.system.length; j++)
      if (body.system[j]?.type === 'text' && body.system[j].text === '')
        return violation(
          'empty-text',
          `system[${j}]`,
          'the system text block is empty',
          anthropicError(400, 'system: text content blocks must be non-empty'),
        );
  const messages: unknown[] = body.messages;
  for (let i = 0; i < messages.length; i++) {
    if (i === messages.length - 1 && roleOf(messages[i]) === 'assistant') break;
    const content = (messages[i] as { content?: unknown } | null)?.content;
    if (content === '' || (Array.isArray(content) && content.length === 0))
      return violation(
        'empty-text',
        `messages[${i}]`,
        'the message has no content',
        anthropicError(
          400,
          `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
        ),
        i,
      );
    const blocks = blocksOf(messages[i]);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (b?.type !== 'text' || typeof b.text !== 'string' || NON_SPACE.test(b.text)) continue;
      return violation(
        'empty-text',
        `messages[${i}].content[${j}]`,
        b.text === '' ? 'the text block is empty' : 'the text block holds only whitespace',
        anthropicError(
          400,
          b.text === ''
            ? 'messages: text content blocks must be non-empty'
            : 'messages: text content blocks must contain non-whitespace text',
        ),
        i,
      );
    }
  }
  return undefined;
}

function duplicateToolUse(messages: unknown[]): Violation | undefined {
  let seen: Map<string, string> | undefined;
  for (let i = 0; i < messages.length; i++) {
    const blocks = blocksOf(messages[i]);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (b?.type !== 'tool_use' || typeof b.id !== 'string') continue;
      seen ??= new Map();
      const earlier = seen.get(b.id);
      if (earlier !== undefined)
        return violation(
          'duplicate-ids',
          `messages[${i}].content[${j}]`,
          `the tool_use id ${b.id} already appears at ${earlier}`,
          anthropicError(400, `messages.${i}.content.${j}: \`tool_use\` ids must be unique`),
          i,
        );
      seen.set(b.id, `messages[${i}].content[${j}]`);
    }
  }
  return undefined;
}

/** The tool_use ids the message before `messages[0]` made, when the request continues a stored thread. */
const EMPTY: ReadonlySet<string> = new Set();

function threadCalls(facts: RequestFacts): ReadonlySet<string> {
  const thread = facts.body.thread;
  if (thread?.type !== 'continue') return EMPTY;
  const stored = loadThread(facts.store, String(thread.previous_message_id ?? ''));
  const last = stored?.messages.at(-1);
  return new Set(last?.role === 'assistant' ? (last.toolCalls ?? []).map((c) => c.id) : []);
}

/**
 * Each `tool_use` is answered by a `tool_result` in the very next (user) message, the results
 * first in it; each `tool_result` answers a `tool_use` of the message just before.
 */
function toolResults(facts: RequestFacts): Violation | undefined {
  const messages: unknown[] = facts.body.messages;
  let previousCalls = threadCalls(facts);
  for (let i = 0; i < messages.length; i++) {
    const blocks = blocksOf(messages[i]);
    if (roleOf(messages[i]) === 'user') {
      for (let j = 0; j < blocks.length; j++) {
        const b = blocks[j];
        if (b?.type !== 'tool_result' || previousCalls.has(String(b.tool_use_id))) continue;
        return violation(
          'tool-results',
          `messages[${i}].content[${j}]`,
          `the tool_result answers ${String(b.tool_use_id)}, which the message before it did not call`,
          anthropicError(
            400,
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          ),
          i,
        );
      }
      previousCalls = EMPTY;
      continue;
    }
    const calls = blocks.some((b) => b?.type === 'tool_use')
      ? blocks.filter((b) => b?.type === 'tool_use')
      : undefined;
    if (!calls) {
      previousCalls = EMPTY;
      continue;
    }
    const ids = calls.map((b) => String(b.id));
    previousCalls = new Set(ids);
    const next = messages[i + 1];
    // Results count only at the head of the next message: text before them breaks the pairing.
    const leading: string[] = [];
    if (roleOf(next) === 'user')
      for (const b of blocksOf(next)) {
        if (b?.type !== 'tool_result') break;
        leading.push(String(b.tool_use_id));
      }
    if (ids.every((id) => leading.includes(id))) continue;
    const missing = calls.filter((b) => !leading.includes(String(b.id)));
    const late =
      roleOf(next) === 'user' &&
      blocksOf(next).some((b) => b?.type === 'tool_result' && missing.some((c) => c.id === b.tool_use_id));
    return violation(
      'tool-results',
      `messages[${i}]`,
      `${missing.map((b) => `${String(b.id)} (${String(b.name)})`).join(', ')} ${missing.length > 1 ? 'have' : 'has'} no tool_result ${late ? 'at the start of' : 'in'} the next message${late ? ' (tool_result blocks must come before any text)' : ''}`,
      anthropicError(
        400,
        `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.map((b) => String(b.id)).join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      ),
      i,
    );
  }
  return undefined;
}

const THINKING_REQUIRED =
  'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/**
 * With thinking on, thinking blocks come back exactly as signed, and the assistant turn that
 * started the tool calls being answered starts with its thinking (when the reply had any).
 */
function thinking(facts: RequestFacts): Violation | undefined {
  const type = facts.body.thinking?.type;
  if (type !== 'enabled' && type !== 'adaptive') return undefined;
  const messages: unknown[] = facts.body.messages;
  for (let i = 0; i < messages.length; i++) {
    if (roleOf(messages[i]) !== 'assistant') continue;
    const blocks = blocksOf(messages[i]);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (b?.type !== 'thinking') continue;
      if (typeof b.signature !== 'string')
        return violation(
          'reasoning',
          `messages[${i}].content[${j}]`,
          'the thinking block comes back without its signature',
          anthropicError(400, `messages.${i}.content.${j}.thinking.signature: Field required`),
          i,
        );
      if (facts.soleIssuer && issuedFor(facts.store, 'anthropic.signature', b.signature) !== b.thinking)
        return violation(
          'reasoning',
          `messages[${i}].content[${j}]`,
          issuedFor(facts.store, 'anthropic.signature', b.signature) === undefined
            ? 'the thinking block carries a signature the model never issued'
            : 'the thinking text differs from the text its signature was issued for',
          anthropicError(400, `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`),
          i,
        );
    }
  }
  let last = messages.length - 1;
  while (last >= 0 && roleOf(messages[last]) !== 'assistant') last--;
  if (last < 0 || last !== messages.length - 2) return undefined;
  const blocks = blocksOf(messages[last]);
  const signed = blocks.some((b) => b?.type === 'tool_use' && thinkingBeforeTool(facts.store, String(b.id)));
  const head = blocks[0]?.type;
  if (!signed || head === 'thinking' || head === 'redacted_thinking') return undefined;
  return violation(
    'reasoning',
    `messages[${last}]`,
    'the assistant turn whose tool calls are being answered comes back without the thinking block it started with',
    anthropicError(
      400,
      `messages.${last}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(head ?? 'text')}\`. ${THINKING_REQUIRED}`,
    ),
    last,
  );
}

export function checkMessages(
  facts: RequestFacts,
  on: (rule: ContractRule) => boolean,
): Violation | undefined {
  const { body } = facts;
  if (!Array.isArray(body.messages)) return undefined;
  if (on('tool-definitions')) {
    const problem = anthropicToolProblem(body.tools);
    if (problem) return violation('tool-definitions', problem.at, problem.problem, problem.error);
  }
  return (
    (on('empty-text') ? emptyText(body) : undefined) ??
    (on('duplicate-ids') ? duplicateToolUse(body.messages) : undefined) ??
    (on('tool-results') ? toolResults(facts) : undefined) ??
    (on('reasoning') ? thinking(facts) : undefined)
  );
}
