/** OpenAI Responses API: what the API checks in `input` (with the stored chain) and `tools`. */
import type { NeutralError } from '../conversation';
import { chainItemIds } from '../providers/openai-responses/items';
import { issuedFor } from '../providers/tokens';
import type { ContractRule } from './rules';
import { openaiToolProblem } from './tool-definitions';
import { type RequestFacts, type Violation, violation } from './violation';

const inputError = (message: string, status = 400, code?: string): NeutralError => ({
  status,
  type: 'invalid_request_error',
  message,
  param: 'input',
  ...(code ? { code } : {}),
});

type Item = Record<string, any>;

const isItem = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);

function duplicateIds(input: unknown[], facts: RequestFacts, previous: string | undefined) {
  const chain = previous ? chainItemIds(facts.store, previous) : new Set<string>();
  const seen = new Map<string, number>();
  for (const [i, item] of input.entries()) {
    if (!isItem(item) || typeof item.id !== 'string') continue;
    const earlier = seen.get(item.id);
    if (earlier !== undefined || chain.has(item.id))
      return violation(
        'duplicate-ids',
        `input[${i}]`,
        earlier !== undefined
          ? `the item id ${item.id} already appears at input[${earlier}]`
          : `the item ${item.id} is already in the thread previous_response_id ${previous} continues`,
        inputError(
          `Duplicate item found with id ${item.id}. Remove duplicate items from your input and try again.`,
        ),
        i,
      );
    seen.set(item.id, i);
  }
  return undefined;
}

/**
 * A reasoning item comes back either whole (`encrypted_content`, as issued) or by the id of
 * a stored item; with `store: false` nothing was stored, so an id alone finds nothing.
 */
function reasoningItems(input: unknown[], facts: RequestFacts) {
  if (!facts.soleIssuer) return undefined;
  for (const [i, item] of input.entries()) {
    if (!isItem(item) || item.type !== 'reasoning') continue;
    const id = typeof item.id === 'string' ? item.id : undefined;
    if (typeof item.encrypted_content === 'string') {
      if (issuedFor(facts.store, 'responses.encrypted', item.encrypted_content) === undefined)
        return violation(
          'reasoning',
          `input[${i}]`,
          `the reasoning item's encrypted_content is not one the model issued (changed, or from elsewhere)`,
          inputError(
            `The encrypted content for item ${id ?? 'reasoning'} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
            400,
            'invalid_encrypted_content',
          ),
          i,
        );
    } else if (id !== undefined && facts.store.get(id) === undefined)
      return violation(
        'reasoning',
        `input[${i}]`,
        `the reasoning item ${id} comes back by id without its encrypted_content, but no stored response holds it (the response that made it had store: false)`,
        inputError(
          `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
          404,
        ),
        i,
      );
  }
  return undefined;
}

const CALLS = new Set(['function_call', 'custom_tool_call']);
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output']);

/** Every output answers a call made before it (in the input or the stored chain); every call gets an output. */
function toolResults(input: unknown[], facts: RequestFacts, previous: string | undefined) {
  const known = new Map<string, string>();
  const pending = new Map<string, string>();
  const add = (id: string, where: string) => {
    known.set(id, where);
    pending.set(id, where);
  };
  for (const m of previous ? (facts.store.get(previous) ?? []) : []) {
    for (const c of m.toolCalls ?? []) add(c.id, `previous_response_id ${previous}`);
    if (m.role === 'tool' && m.toolCallId) pending.delete(m.toolCallId);
  }
  for (const [i, item] of input.entries()) {
    if (!isItem(item)) continue;
    if (CALLS.has(item.type) && typeof item.call_id === 'string') add(item.call_id, `input[${i}]`);
    else if (item.type === 'item_reference' && typeof item.id === 'string')
      for (const c of facts.store.get(item.id)?.[0]?.toolCalls ?? []) add(c.id, `input[${i}]`);
    else if (OUTPUTS.has(item.type) && typeof item.call_id === 'string') {
      if (!known.has(item.call_id))
        return violation(
          'tool-results',
          `input[${i}]`,
          `the ${item.type} answers ${item.call_id}, but no function_call with that call_id comes before it (in the input or the stored thread)`,
          inputError(`No tool call found for function call output with call_id ${item.call_id}.`),
          i,
        );
      pending.delete(item.call_id);
    }
  }
  const [first] = pending;
  if (!first) return undefined;
  const [id, where] = first;
  const index = /^input\[(\d+)\]$/.exec(where)?.[1];
  return violation(
    'tool-results',
    where,
    `the function call ${id} has no function_call_output in the request`,
    inputError(`No tool output found for function call ${id}.`),
    index === undefined ? undefined : Number(index),
  );
}

export function checkResponses(
  facts: RequestFacts,
  on: (rule: ContractRule) => boolean,
): Violation | undefined {
  const { body } = facts;
  if (on('tool-definitions')) {
    const problem = openaiToolProblem(body.tools, false);
    if (problem) return violation('tool-definitions', problem.at, problem.problem, problem.error);
  }
  const input = Array.isArray(body.input) ? body.input : [];
  const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  return (
    (on('duplicate-ids') ? duplicateIds(input, facts, previous) : undefined) ??
    (on('reasoning') ? reasoningItems(input, facts) : undefined) ??
    (on('tool-results') ? toolResults(input, facts, previous) : undefined)
  );
}
