/** The stream dialects by name (the implementations load only when a setting asks for one). */

/** Every dialect, with who sends it (the README's table is written from these). */
export const DIALECTS = {
  'empty-choices':
    'Azure OpenAI: a first chunk with empty `choices` carrying `prompt_filter_results`, then `content_filter_results` on every choice',
  'keep-alive':
    'keep-alives: OpenRouter `: OPENROUTER PROCESSING` comment lines (Chat), `ping` events between the others (Anthropic)',
  'interleaved-tool-calls':
    'parallel tool calls streamed side by side: every header first, then argument fragments of each call in turn (Chat)',
  'whole-tool-calls':
    'each tool call in one fragment with its id, name and whole arguments (Ollama `/v1`, Gemini OpenAI-compatible API)',
  'empty-arguments':
    'a zero-argument tool call sent as `""` and no argument fragments (Chat, Responses), a `tool_use` / `toolUse` block with no input delta (Anthropic, Bedrock)',
  'whole-tool-input':
    'a `tool_use` block whose input comes whole on `content_block_start`, no `input_json_delta` (Anthropic programmatic tool calls, Anthropic-compatible gateways)',
  'batched-function-calls': 'several function calls in one chunk (Gemini)',
  'reasoning-deltas':
    '`reasoning_content` deltas before the answer, `message.reasoning_content` when not streamed (DeepSeek, vLLM, SGLang)',
} as const;

export type DialectName = keyof typeof DIALECTS;

export const DIALECT_NAMES = Object.keys(DIALECTS) as DialectName[];
