/**
 * The settings of a request that shape the answer besides its messages and tools —
 * temperature, token limits, stop sequences, tool choice, output format, reasoning effort —
 * read from the wire body of each protocol under one neutral name each, so a recording can
 * say "temperature 0 → 0.7" whatever the provider.
 */

type Body = Record<string, unknown>;

/** Neutral name → where the protocol keeps it (a dotted path into the body). */
const FIELDS: Record<string, Record<string, string>> = {
  'openai.chat': {
    temperature: 'temperature',
    topP: 'top_p',
    maxTokens: 'max_tokens',
    maxCompletionTokens: 'max_completion_tokens',
    stop: 'stop',
    seed: 'seed',
    frequencyPenalty: 'frequency_penalty',
    presencePenalty: 'presence_penalty',
    toolChoice: 'tool_choice',
    parallelToolCalls: 'parallel_tool_calls',
    responseFormat: 'response_format',
    reasoningEffort: 'reasoning_effort',
    n: 'n',
  },
  'openai.responses': {
    temperature: 'temperature',
    topP: 'top_p',
    maxTokens: 'max_output_tokens',
    toolChoice: 'tool_choice',
    parallelToolCalls: 'parallel_tool_calls',
    responseFormat: 'text.format',
    reasoningEffort: 'reasoning.effort',
  },
  'anthropic.messages': {
    temperature: 'temperature',
    topP: 'top_p',
    topK: 'top_k',
    maxTokens: 'max_tokens',
    stop: 'stop_sequences',
    toolChoice: 'tool_choice',
    thinking: 'thinking',
  },
  'gemini.generateContent': {
    temperature: 'generationConfig.temperature',
    topP: 'generationConfig.topP',
    topK: 'generationConfig.topK',
    maxTokens: 'generationConfig.maxOutputTokens',
    stop: 'generationConfig.stopSequences',
    seed: 'generationConfig.seed',
    responseFormat: 'generationConfig.responseMimeType',
    responseSchema: 'generationConfig.responseSchema',
    thinking: 'generationConfig.thinkingConfig',
    toolChoice: 'toolConfig.functionCallingConfig',
  },
};

function at(body: unknown, path: string): unknown {
  let value: unknown = body;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Body)[key];
  }
  return value;
}

/** The request's sampling settings, by neutral name; only those it sets (empty for an unknown protocol). */
export function samplingOf(protocol: string, body: unknown): Record<string, unknown> {
  const fields = FIELDS[protocol];
  const out: Record<string, unknown> = {};
  if (!fields) return out;
  for (const [name, path] of Object.entries(fields)) {
    const value = at(body, path);
    if (value !== undefined && value !== null) out[name] = value;
  }
  return out;
}
