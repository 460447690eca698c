/**
 * The request contracts the mock model enforces, as the real APIs do: a request that breaks
 * one gets the provider's own error and fails the test. Each rule can be turned off.
 */

export const CONTRACT_RULES = {
  'tool-results':
    'every tool call is answered by its result where the API wants it, and every result answers a call',
  reasoning:
    'reasoning the API signed comes back unchanged (Anthropic thinking signatures, Gemini thought signatures, Responses reasoning items)',
  'empty-text': 'no empty or whitespace-only text blocks (Anthropic)',
  'duplicate-ids': 'no item or tool call id appears twice in one request',
  'tool-definitions': 'tool names and parameter schemas stay within what the API accepts',
  'known-models': 'the model is one the fixture file declares in `models`',
  'structured-output':
    "a fixture's reply fits the schema the request asked for (response format, forced or strict tool)",
  'offered-tools':
    "a fixture's reply calls only tools the request lets the model call, and searches the web only when it offers a search tool",
  parameters:
    'request parameters have the type and range the API accepts and the model supports (sampling values, token limits, message content, thinking settings)',
} as const;

export type ContractRule = keyof typeof CONTRACT_RULES;

export const RULE_IDS = Object.keys(CONTRACT_RULES) as ContractRule[];

/** `true` / `false` for every rule, or a value per rule (rules not named keep the layer below). */
export type ContractsSetting = boolean | Partial<Record<ContractRule, boolean>>;

export function isRule(value: unknown): value is ContractRule {
  return typeof value === 'string' && Object.hasOwn(CONTRACT_RULES, value);
}

/** Why `setting` is not a contracts setting, or undefined when it is one. */
export function settingProblem(setting: unknown): string | undefined {
  if (typeof setting === 'boolean') return undefined;
  if (typeof setting !== 'object' || setting === null || Array.isArray(setting))
    return `expected true, false or an object of rule names to booleans, received ${JSON.stringify(setting)}`;
  for (const [key, value] of Object.entries(setting)) {
    if (!isRule(key)) return `unknown rule ${JSON.stringify(key)}; the rules are ${RULE_IDS.join(', ')}`;
    if (typeof value !== 'boolean')
      return `rule ${JSON.stringify(key)} must be true or false, received ${JSON.stringify(value)}`;
  }
  return undefined;
}

let last:
  | { layers: ReadonlyArray<ContractsSetting | undefined>; rules: ReadonlySet<ContractRule> }
  | undefined;

/**
 * The rules on after applying `layers` in order (later wins); every rule starts on. Asked
 * for every request with the same few settings, so the last answer is kept.
 */
export function enabledRules(layers: ReadonlyArray<ContractsSetting | undefined>): ReadonlySet<ContractRule> {
  if (
    last &&
    (last.layers === layers ||
      (last.layers.length === layers.length && last.layers.every((l, i) => l === layers[i])))
  )
    return last.rules;
  const rules = computeRules(layers);
  last = { layers, rules };
  return rules;
}

function computeRules(layers: ReadonlyArray<ContractsSetting | undefined>): Set<ContractRule> {
  const on = new Set<ContractRule>(RULE_IDS);
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (typeof layer === 'boolean') {
      for (const rule of RULE_IDS) {
        if (layer) on.add(rule);
        else on.delete(rule);
      }
      continue;
    }
    for (const [rule, value] of Object.entries(layer) as Array<[ContractRule, boolean]>) {
      if (value) on.add(rule);
      else on.delete(rule);
    }
  }
  return on;
}
