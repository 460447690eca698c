/**
 * The request parameters each API validates before it answers, and that agents get wrong: an
 * empty conversation or tool list, a tool result passed as an object (a forgotten
 * `JSON.stringify`), sampling values out of the API's range or sent as strings, `max_tokens` and
 * `temperature` on OpenAI's reasoning models, a tool choice with no tools, stream options without
 * a stream, JSON mode with no word of JSON in the prompt, Anthropic's extended-thinking limits.
 * Each with the provider's own 400.
 */
import type { NeutralError } from '../conversation';
import { anthropicError } from '../providers/anthropic-messages/errors';
import type { ContractRule } from './rules';
import { type RequestFacts, type Violation, violation } from './violation';

type Body = Record<string, any>;

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const field = (obj: Body | undefined, camel: string, snake: string) => obj?.[camel] ?? obj?.[snake];

const openai = (message: string, param: string | null, code: string | null): NeutralError => ({
  status: 400,
  type: 'invalid_request_error',
  message,
  ...(param !== null ? { param } : {}),
  ...(code !== null ? { code } : {}),
});

/** How OpenAI's validation names the JSON type it got. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'boolean' ? 'a boolean' : 'a string';
}

interface Range {
  min: number;
  max?: number;
  integer?: boolean;
}

/** An OpenAI number parameter: its type, then its range, in the API's words. */
function openaiNumber(body: Body, param: string, range: Range): Violation | undefined {
  const value = body[param];
  if (value === undefined || value === null) return undefined;
  const expected = range.integer ? 'an integer' : 'a decimal';
  const kind = range.integer ? 'integer' : 'decimal';
  if (typeof value !== 'number' || (range.integer && !Number.isInteger(value)))
    return violation(
      'parameters',
      param,
      `${param} is ${kindOf(value)} (${JSON.stringify(value)}), not a number`,
      openai(
        `Invalid type for '${param}': expected ${expected}, but got ${kindOf(value)} instead.`,
        param,
        'invalid_type',
      ),
    );
  if (range.max !== undefined && value > range.max)
    return violation(
      'parameters',
      param,
      `${param} ${value} is above the API's maximum, ${range.max}`,
      openai(
        `Invalid '${param}': ${kind} above maximum value. Expected a value <= ${range.max}, but got ${value} instead.`,
        param,
        `${kind}_above_max_value`,
      ),
    );
  if (value < range.min)
    return violation(
      'parameters',
      param,
      `${param} ${value} is below the API's minimum, ${range.min}`,
      openai(
        `Invalid '${param}': ${kind} below minimum value. Expected a value >= ${range.min}, but got ${value} instead.`,
        param,
        `${kind}_below_min_value`,
      ),
    );
  return undefined;
}

function firstOf(checks: Array<() => Violation | undefined>): Violation | undefined {
  for (const check of checks) {
    const found = check();
    if (found) return found;
  }
  return undefined;
}

/** OpenAI's reasoning models: o-series and GPT-5 (not the `-chat` variants, which are chat models). */
export const isOpenAIReasoning = (model: unknown) =>
  typeof model === 'string' && /^(?:o\d(?:-|$)|gpt-5(?:\.\d+)?(?:-(?!chat)|$))/.test(model);
/** Of them, those that sample only at the default temperature (GPT-5.1 and later accept one without reasoning). */
const fixedTemperature = (model: unknown) =>
  typeof model === 'string' && /^(?:o\d(?:-|$)|gpt-5(?:-(?!chat)|$))/.test(model);

/** A `temperature` other than 1 on a model that samples only at 1, refused with the API's `error`. */
function fixedTemperatureBreach(body: Body, error: NeutralError): Violation | undefined {
  if (typeof body.temperature !== 'number' || body.temperature === 1 || !fixedTemperature(body.model))
    return undefined;
  return violation(
    'parameters',
    'temperature',
    `${body.model} samples only at the default temperature, 1`,
    error,
  );
}

const SAMPLING_CHAT: Array<[string, Range]> = [
  ['temperature', { min: 0, max: 2 }],
  ['top_p', { min: 0, max: 1 }],
  ['frequency_penalty', { min: -2, max: 2 }],
  ['presence_penalty', { min: -2, max: 2 }],
  ['n', { min: 1, max: 128, integer: true }],
  ['top_logprobs', { min: 0, max: 20, integer: true }],
  ['max_tokens', { min: 1, integer: true }],
  ['max_completion_tokens', { min: 1, integer: true }],
];

/** A message's `content` is a string, an array of parts, or (an assistant's with tool calls) null. */
function chatContent(messages: unknown[]): Violation | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m)) continue;
    const content = m.content;
    if (content === undefined || content === null || typeof content === 'string' || Array.isArray(content))
      continue;
    const param = `messages[${i}].content`;
    return violation(
      'parameters',
      param,
      `the ${String(m.role)} message's content is ${kindOf(content)}${m.role === 'tool' ? ' (a tool result must be text: JSON.stringify it)' : ''}`,
      openai(
        `Invalid type for '${param}': expected one of a string or array of objects, but got ${kindOf(content)} instead.`,
        param,
        'invalid_type',
      ),
      i,
    );
  }
  return undefined;
}

/** An array parameter the API wants with at least one element: `messages`, `tools`. */
function emptyArray(body: Body, param: string, problem: string): Violation | undefined {
  if (!Array.isArray(body[param]) || body[param].length > 0) return undefined;
  return violation(
    'parameters',
    param,
    problem,
    openai(
      `Invalid '${param}': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      param,
      'empty_array',
    ),
  );
}

const present = (value: unknown) => value !== undefined && value !== null;

/**
 * Parameters that mean something only beside another one, which the API refuses alone: a tool
 * choice or parallel calls with no tools (an agent's tool-less side call that kept its
 * defaults), stream options on a request that does not stream.
 */
function chatDependencies(body: Body): Violation | undefined {
  const tools = Array.isArray(body.tools) && body.tools.length > 0;
  if (present(body.tool_choice) && !tools)
    return violation(
      'parameters',
      'tool_choice',
      'tool_choice is set, but the request offers no tools',
      openai(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        'tool_choice',
        null,
      ),
    );
  if (present(body.parallel_tool_calls) && !tools)
    return violation(
      'parameters',
      'parallel_tool_calls',
      'parallel_tool_calls is set, but the request offers no tools',
      openai(
        "Invalid value for 'parallel_tool_calls': only allowed when 'tools' are specified.",
        'parallel_tool_calls',
        null,
      ),
    );
  if (present(body.stream_options) && body.stream !== true)
    return violation(
      'parameters',
      'stream_options',
      'stream_options is set, but the request does not stream',
      openai(
        "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        'stream_options',
        null,
      ),
    );
  return undefined;
}

/** The text of a Chat message or Responses input item, its parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
}

/**
 * JSON mode (`json_object`) needs the prompt to ask for JSON: the API refuses a request whose
 * messages never say the word (in any case), so a model is never left to guess the format.
 */
function jsonModeWithoutTheWord(
  format: unknown,
  texts: string[],
  param: string,
  error: NeutralError,
): Violation | undefined {
  if (!isObject(format) || format.type !== 'json_object') return undefined;
  if (texts.some((t) => /json/i.test(t))) return undefined;
  return violation(
    'parameters',
    param,
    'the request asks for JSON mode (json_object), but no message says "json"',
    error,
  );
}

function chatParameters(body: Body): Violation | undefined {
  const messages = body.messages;
  return firstOf([
    () => emptyArray(body, 'messages', 'the request has no messages'),
    () => emptyArray(body, 'tools', 'tools is an empty list (leave it out when there are none)'),
    () => (Array.isArray(messages) ? chatContent(messages) : undefined),
    () => chatDependencies(body),
    () =>
      jsonModeWithoutTheWord(
        body.response_format,
        (Array.isArray(messages) ? messages : []).map((m) => textOf(isObject(m) ? m.content : undefined)),
        'response_format',
        openai(
          "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
          'messages',
          null,
        ),
      ),
    ...SAMPLING_CHAT.map(
      ([param, range]) =>
        () =>
          openaiNumber(body, param, range),
    ),
    () =>
      body.max_tokens !== undefined && body.max_tokens !== null && isOpenAIReasoning(body.model)
        ? violation(
            'parameters',
            'max_tokens',
            `${body.model} is a reasoning model: it takes max_completion_tokens, not max_tokens`,
            openai(
              "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
              'max_tokens',
              'unsupported_parameter',
            ),
          )
        : undefined,
    () =>
      fixedTemperatureBreach(
        body,
        openai(
          `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
          'temperature',
          'unsupported_value',
        ),
      ),
  ]);
}

/** Chat Completions parameters the Responses API does not know (code ported from Chat keeps them). */
const CHAT_ONLY: Record<string, string> = {
  max_tokens: 'Responses takes max_output_tokens',
  max_completion_tokens: 'Responses takes max_output_tokens',
  response_format: 'Responses takes text.format',
  n: 'Responses makes one response',
  stop: 'Responses has no stop sequences',
  seed: 'Responses takes no seed',
  logprobs: 'Responses asks for them with include: ["message.output_text.logprobs"]',
};

const unknownParameter = (param: string, hint = '') =>
  openai(`Unknown parameter: '${param}'.${hint}`, param, 'unknown_parameter');

/** What a Responses request carries from Chat Completions, refused as the API refuses it. */
function chatShapes(body: Body): Violation | undefined {
  if (body.messages !== undefined)
    return violation(
      'parameters',
      'messages',
      'the request sends Chat Completions messages: Responses takes input',
      {
        status: 400,
        type: 'invalid_request_error',
        message:
          "Unsupported parameter: 'messages'. In the Responses API, this parameter has moved to 'input'. Try again with the new parameter. See the API documentation for more information: https://platform.openai.com/docs/api-reference/responses/create.",
        code: 'unsupported_parameter',
      },
    );
  for (const [param, instead] of Object.entries(CHAT_ONLY))
    if (body[param] !== undefined)
      return violation(
        'parameters',
        param,
        `${param} is a Chat Completions parameter: ${instead}`,
        // The API offers the closest key it knows that the request does not already send.
        unknownParameter(param, param === 'stop' && body.store === undefined ? " Did you mean 'store'?" : ''),
      );
  if (isObject(body.stream_options) && body.stream_options.include_usage !== undefined)
    return violation(
      'parameters',
      'stream_options.include_usage',
      'stream_options.include_usage is a Chat Completions option: a Responses stream reports usage in response.completed',
      unknownParameter('stream_options.include_usage'),
    );
  const choice = body.tool_choice;
  if (isObject(choice) && choice.type === 'function' && typeof choice.name !== 'string')
    return violation(
      'parameters',
      'tool_choice',
      `tool_choice is Chat-shaped (${JSON.stringify(choice)}): Responses names the function as tool_choice.name`,
      openai(
        "Missing required parameter: 'tool_choice.name'.",
        'tool_choice.name',
        'missing_required_parameter',
      ),
    );
  return undefined;
}

function responsesParameters(body: Body): Violation | undefined {
  // The input messages must say it: the instructions alone do not count.
  const input = body.input;
  const texts =
    typeof input === 'string'
      ? [input]
      : (Array.isArray(input) ? input : []).map((item) =>
          isObject(item) && (item.type === undefined || item.type === 'message') ? textOf(item.content) : '',
        );
  return firstOf([
    () => chatShapes(body),
    () =>
      body.tool_choice === 'required' && !(Array.isArray(body.tools) && body.tools.length > 0)
        ? violation(
            'parameters',
            'tool_choice',
            'tool_choice "required" asks for a tool call, but the request offers no tools',
            openai("Tool choice 'required' must be specified with 'tools' parameter.", 'tool_choice', null),
          )
        : undefined,
    () =>
      jsonModeWithoutTheWord(isObject(body.text) ? body.text.format : undefined, texts, 'text.format', {
        status: 400,
        type: 'invalid_request_error',
        message:
          "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
        param: 'text.format',
      }),
    () => openaiNumber(body, 'temperature', { min: 0, max: 2 }),
    () => openaiNumber(body, 'top_p', { min: 0, max: 1 }),
    () => openaiNumber(body, 'top_logprobs', { min: 0, max: 20, integer: true }),
    () => openaiNumber(body, 'max_output_tokens', { min: 16, integer: true }),
    () =>
      fixedTemperatureBreach(
        body,
        openai("Unsupported parameter: 'temperature' is not supported with this model.", 'temperature', null),
      ),
    () =>
      typeof body.top_p === 'number' && body.top_p !== 1 && fixedTemperature(body.model)
        ? violation(
            'parameters',
            'top_p',
            `${body.model} samples only at the default top_p, 1`,
            openai("Unsupported parameter: 'top_p' is not supported with this model.", 'top_p', null),
          )
        : undefined,
  ]);
}

/** An Anthropic number in `[min, max]`, in the API's words (`temperature: range: 0..1`). */
function anthropicRange(body: Body, param: string, min: number, max: number): Violation | undefined {
  const value = body[param];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number')
    return violation(
      'parameters',
      param,
      `${param} is ${kindOf(value)} (${JSON.stringify(value)}), not a number`,
      anthropicError(400, `${param}: Input should be a valid number`),
    );
  if (value >= min && value <= max) return undefined;
  return violation(
    'parameters',
    param,
    `${param} ${value} is outside Anthropic's range, ${min} to ${max}`,
    anthropicError(400, `${param}: range: ${min}..${max}`),
  );
}

/** Claude models that take `temperature` or `top_p`, not both (Opus 4.1, Sonnet 4.5, Haiku 4.5 and later). */
const ONE_SAMPLER =
  /^claude-(?:opus-4-(?:[1-9]|\d{2})|(?:sonnet|haiku)-4-(?:[5-9]|\d{2})|(?:opus|sonnet|haiku)-(?:[5-9]|\d{2}))(?:[-@.]|$)/;

const THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** A tool result's `content` is text or a list of blocks. */
function toolResultContent(messages: unknown[]): Violation | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const content = isObject(m) ? m.content : undefined;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const b = content[j];
      if (!isObject(b) || b.type !== 'tool_result') continue;
      const c = b.content;
      if (c === undefined || typeof c === 'string' || Array.isArray(c)) continue;
      return violation(
        'parameters',
        `messages[${i}].content[${j}].content`,
        `the tool_result for ${String(b.tool_use_id)} is ${kindOf(c)} (a tool result must be text or content blocks: JSON.stringify it)`,
        anthropicError(400, `messages.${i}.content.${j}.tool_result.content: Input should be a valid list`),
        i,
      );
    }
  }
  return undefined;
}

function thinkingParameters(body: Body, beta: string): Violation | undefined {
  const thinking = body.thinking;
  const type = thinking?.type;
  if (type !== 'enabled' && type !== 'adaptive') return undefined;
  if (type === 'enabled' && typeof thinking.budget_tokens === 'number') {
    if (thinking.budget_tokens < 1024)
      return violation(
        'parameters',
        'thinking.budget_tokens',
        `the thinking budget ${thinking.budget_tokens} is below Anthropic's minimum, 1024`,
        anthropicError(400, 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024'),
      );
    // Interleaved thinking spreads the budget over the whole turn: it may exceed max_tokens.
    if (
      typeof body.max_tokens === 'number' &&
      body.max_tokens <= thinking.budget_tokens &&
      !beta.includes('interleaved-thinking')
    )
      return violation(
        'parameters',
        'max_tokens',
        `max_tokens ${body.max_tokens} leaves no room after the thinking budget ${thinking.budget_tokens}`,
        anthropicError(
          400,
          `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${THINKING_DOCS}#max-tokens-and-context-window-size`,
        ),
      );
  }
  if (typeof body.temperature === 'number' && body.temperature !== 1)
    return violation(
      'parameters',
      'temperature',
      `temperature ${body.temperature} with thinking on (thinking samples at 1 only)`,
      anthropicError(
        400,
        `\`temperature\` may only be set to 1 when thinking is enabled. Please consult our documentation at ${THINKING_DOCS}#feature-compatibility`,
      ),
    );
  const choice = body.tool_choice?.type;
  if (choice === 'any' || choice === 'tool')
    return violation(
      'parameters',
      'tool_choice',
      `tool_choice ${JSON.stringify(body.tool_choice)} forces a tool call, which thinking does not allow`,
      anthropicError(400, 'Thinking may not be enabled when tool_choice forces tool use.'),
    );
  return undefined;
}

function messagesParameters(body: Body, beta: string): Violation | undefined {
  if (Array.isArray(body.messages) && body.messages.length === 0)
    return violation(
      'parameters',
      'messages',
      'the request has no messages',
      anthropicError(400, 'messages: at least one message is required'),
    );
  return firstOf([
    () => (Array.isArray(body.messages) ? toolResultContent(body.messages) : undefined),
    () => anthropicRange(body, 'temperature', 0, 1),
    () => anthropicRange(body, 'top_p', 0, 1),
    () => thinkingParameters(body, beta),
    () =>
      typeof body.temperature === 'number' &&
      typeof body.top_p === 'number' &&
      ONE_SAMPLER.test(String(body.model))
        ? violation(
            'parameters',
            'top_p',
            `${body.model} takes temperature or top_p, not both`,
            anthropicError(
              400,
              '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
            ),
          )
        : undefined,
  ]);
}

/** Gemini's range check, in the words the API uses (an exclusive upper bound a hair above the maximum). */
function geminiRange(
  config: Body | undefined,
  camel: string,
  snake: string,
  min: number,
  below: number,
): Violation | undefined {
  const value = field(config, camel, snake);
  if (typeof value !== 'number' || (value >= min && value < below)) return undefined;
  return violation(
    'parameters',
    `generationConfig.${camel}`,
    `${camel} ${value} is outside the range the API accepts, ${min} to ${below} (exclusive)`,
    {
      status: 400,
      type: 'INVALID_ARGUMENT',
      message: `Unable to submit request because it has a ${camel} value of ${value} but the supported range is from ${min} (inclusive) to ${below} (exclusive). Update the value and try again.`,
    },
  );
}

/** The most output tokens a Gemini model takes, plus one (the API names the exclusive bound). */
function geminiOutputLimit(model: string): number | undefined {
  if (/^(?:models\/)?gemini-(?:2\.5|3)(?:[.-]|$)/.test(model)) return 65537;
  if (/^(?:models\/)?gemini-2\.0(?:[.-]|$)/.test(model)) return 8193;
  return undefined;
}

function geminiParameters(body: Body, model: string): Violation | undefined {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  for (let i = 0; i < contents.length; i++)
    if (isObject(contents[i]) && Array.isArray(contents[i].parts) && contents[i].parts.length === 0)
      return violation(
        'parameters',
        `contents[${i}].parts`,
        `the content at contents[${i}] has no parts`,
        {
          status: 400,
          type: 'INVALID_ARGUMENT',
          message: `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`,
        },
        i,
      );
  const config = field(body, 'generationConfig', 'generation_config');
  const limit = geminiOutputLimit(model);
  return firstOf([
    () => geminiRange(config, 'temperature', 'temperature', 0, 2.0001),
    () => geminiRange(config, 'topP', 'top_p', 0, 1.0001),
    () => (limit ? geminiRange(config, 'maxOutputTokens', 'max_output_tokens', 1, limit) : undefined),
  ]);
}

/** Bedrock's constraint message: `Value '1.5' at 'inferenceConfig.temperature' failed to satisfy constraint…`. */
function converseRange(
  config: Body | undefined,
  name: string,
  min: number,
  max?: number,
): Violation | undefined {
  const value = config?.[name];
  if (typeof value !== 'number') return undefined;
  const above = max !== undefined && value > max;
  if (!above && value >= min) return undefined;
  return violation(
    'parameters',
    `inferenceConfig.${name}`,
    `${name} ${value} is ${above ? `above Bedrock's maximum, ${max}` : `below Bedrock's minimum, ${min}`}`,
    {
      status: 400,
      type: 'ValidationException',
      message: `1 validation error detected: Value '${value}' at 'inferenceConfig.${name}' failed to satisfy constraint: Member must have value ${above ? `less than or equal to ${max}` : `greater than or equal to ${min}`}`,
    },
  );
}

function converseParameters(body: Body): Violation | undefined {
  const config = isObject(body.inferenceConfig) ? body.inferenceConfig : undefined;
  return firstOf([
    () => converseRange(config, 'temperature', 0, 1),
    () => converseRange(config, 'topP', 0, 1),
    () => converseRange(config, 'maxTokens', 1),
  ]);
}

/** The first parameter of the request the API would refuse, or undefined. */
export function checkParameters(
  protocol: string,
  facts: RequestFacts,
  on: (rule: ContractRule) => boolean,
  model: string,
): Violation | undefined {
  if (!on('parameters')) return undefined;
  const { body } = facts;
  switch (protocol) {
    case 'openai.chat':
      return chatParameters(body);
    case 'openai.responses':
      return responsesParameters(body);
    case 'anthropic.messages':
      return messagesParameters(body, facts.header?.('anthropic-beta') ?? '');
    case 'gemini.generateContent':
      return geminiParameters(body, model);
    case 'bedrock.converse':
      return converseParameters(body);
    default:
      return undefined;
  }
}
