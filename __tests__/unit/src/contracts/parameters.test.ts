/**
 * The parameters rule, run directly: each protocol's request fields as its API validates them,
 * the provider's 400 for each, and what the APIs accept left alone.
 */
import { describe, expect, it } from '@jest/globals';
import { checkParameters, isOpenAIReasoning } from '../../../../src/contracts/parameters';
import type { RequestFacts } from '../../../../src/contracts/violation';
import { geminiEmbeddings } from '../../../../src/providers/gemini-embeddings';
import { openaiEmbeddings } from '../../../../src/providers/openai-embeddings';
import { createConversationStore } from '../../../../src/providers/store';

function check(protocol: string, body: Record<string, unknown>, model = String(body.model ?? ''), beta = '') {
  const facts: RequestFacts = {
    body,
    store: createConversationStore(),
    soleIssuer: true,
    header: (name) => (name === 'anthropic-beta' ? beta : null),
  };
  return checkParameters(protocol, facts, () => true, model);
}

const ask = [{ role: 'user', content: 'hi' }];

describe('OpenAI Chat', () => {
  it('no messages; a message content that is an object', () => {
    expect(check('openai.chat', { model: 'gpt-4o', messages: [] })?.error).toEqual({
      status: 400,
      type: 'invalid_request_error',
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: 'messages',
      code: 'empty_array',
    });
    const v = check('openai.chat', {
      model: 'gpt-4o',
      messages: [...ask, { role: 'tool', tool_call_id: 'c', content: { tempC: 18 } }],
    });
    expect(v).toMatchObject({ rule: 'parameters', at: 'messages[1].content', index: 1 });
    expect(v?.error?.message).toBe(
      "Invalid type for 'messages[1].content': expected one of a string or array of objects, but got an object instead.",
    );
    expect(
      check('openai.chat', {
        model: 'gpt-4o',
        messages: [{ role: 'assistant', content: null, tool_calls: [] }],
      }),
    ).toBeUndefined();
  });

  it('sampling out of range and of the wrong type, in the API words', () => {
    const at = (extra: Record<string, unknown>) =>
      check('openai.chat', { model: 'gpt-4o', messages: ask, ...extra })?.error;
    expect(at({ temperature: 5 })).toMatchObject({
      message:
        "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 5 instead.",
      param: 'temperature',
      code: 'decimal_above_max_value',
    });
    expect(at({ top_p: -0.5 })?.message).toBe(
      "Invalid 'top_p': decimal below minimum value. Expected a value >= 0, but got -0.5 instead.",
    );
    expect(at({ n: 0 })).toMatchObject({ code: 'integer_below_min_value' });
    expect(at({ top_logprobs: 2.5 })?.message).toBe(
      "Invalid type for 'top_logprobs': expected an integer, but got a decimal instead.",
    );
    expect(at({ temperature: '0.2' })?.message).toBe(
      "Invalid type for 'temperature': expected a decimal, but got a string instead.",
    );
    expect(at({ temperature: 2, top_p: 1, presence_penalty: -2, max_tokens: 10, n: 1 })).toBeUndefined();
  });

  it('max_tokens and a temperature other than 1 on reasoning models', () => {
    expect(check('openai.chat', { model: 'o4-mini', messages: ask, max_tokens: 5 })?.error?.code).toBe(
      'unsupported_parameter',
    );
    expect(check('openai.chat', { model: 'gpt-5.1', messages: ask, max_tokens: 5 })?.at).toBe('max_tokens');
    expect(check('openai.chat', { model: 'o1', messages: ask, temperature: 0.2 })?.error?.message).toBe(
      "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
    );
    expect(check('openai.chat', { model: 'o1', messages: ask, temperature: 1 })).toBeUndefined();
    // GPT-5.1 samples at other temperatures when it does not reason; the chat models are not reasoning models.
    expect(check('openai.chat', { model: 'gpt-5.1', messages: ask, temperature: 0.2 })).toBeUndefined();
    expect(
      check('openai.chat', { model: 'gpt-5-chat-latest', messages: ask, max_tokens: 5 }),
    ).toBeUndefined();
    expect(['o1', 'o3-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5.2-codex'].every(isOpenAIReasoning)).toBe(true);
    expect(['gpt-4o', 'gpt-4.1', 'omni-moderation-latest', 'gpt-5-chat-latest'].some(isOpenAIReasoning)).toBe(
      false,
    );
  });

  it('an empty tool list; a tool choice or parallel calls with no tools; stream options without a stream', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const at = (extra: Record<string, unknown>) =>
      check('openai.chat', { model: 'gpt-4o', messages: ask, ...extra })?.error;
    expect(at({ tools: [] })).toEqual({
      status: 400,
      type: 'invalid_request_error',
      message:
        "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: 'tools',
      code: 'empty_array',
    });
    expect(at({ tool_choice: 'auto' })).toEqual({
      status: 400,
      type: 'invalid_request_error',
      message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      param: 'tool_choice',
    });
    expect(at({ tool_choice: 'none' })?.param).toBe('tool_choice');
    expect(at({ parallel_tool_calls: false })).toMatchObject({
      message: "Invalid value for 'parallel_tool_calls': only allowed when 'tools' are specified.",
      param: 'parallel_tool_calls',
    });
    expect(at({ stream_options: { include_usage: true } })).toMatchObject({
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: 'stream_options',
    });
    expect(at({ stream_options: { include_usage: true }, stream: false })?.param).toBe('stream_options');
    // What the APIs accept: each beside what it needs, and nulls a client sends for "unset".
    expect(
      at({ tools, tool_choice: 'required', parallel_tool_calls: false, stream: true, stream_options: {} }),
    ).toBeUndefined();
    expect(at({ tool_choice: null, parallel_tool_calls: null, stream_options: null })).toBeUndefined();
  });

  it('JSON mode with no word of JSON in the messages', () => {
    const format = { response_format: { type: 'json_object' } };
    const v = check('openai.chat', { model: 'gpt-4o', messages: ask, ...format });
    expect(v).toMatchObject({ rule: 'parameters', at: 'response_format' });
    expect(v?.error).toEqual({
      status: 400,
      type: 'invalid_request_error',
      message:
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
      param: 'messages',
    });
    // Any message, in any case, in text parts too.
    const system = { role: 'system', content: [{ type: 'text', text: 'Answer in JSON.' }] };
    expect(check('openai.chat', { model: 'gpt-4o', messages: [system, ...ask], ...format })).toBeUndefined();
    expect(
      check('openai.chat', {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Reply as json' }],
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } },
      }),
    ).toBeUndefined();
  });
});

describe('OpenAI Responses', () => {
  it('what code ported from Chat Completions sends, in the API words', () => {
    const at = (extra: Record<string, unknown>) =>
      check('openai.responses', { model: 'gpt-4o', input: 'hi', ...extra });
    expect(at({ max_tokens: 300 })).toMatchObject({
      at: 'max_tokens',
      problem: 'max_tokens is a Chat Completions parameter: Responses takes max_output_tokens',
      error: {
        message: "Unknown parameter: 'max_tokens'.",
        param: 'max_tokens',
        code: 'unknown_parameter',
      },
    });
    expect(at({ stop: ['\n'] })?.error?.message).toBe("Unknown parameter: 'stop'. Did you mean 'store'?");
    expect(at({ stop: ['\n'], store: false })?.error?.message).toBe("Unknown parameter: 'stop'.");
    expect(at({ response_format: { type: 'json_object' } })?.error?.param).toBe('response_format');
    expect(at({ stream: true, stream_options: { include_usage: true } })?.error).toMatchObject({
      message: "Unknown parameter: 'stream_options.include_usage'.",
      param: 'stream_options.include_usage',
    });
    expect(
      at({
        tools: [{ type: 'function', name: 'f' }],
        tool_choice: { type: 'function', function: { name: 'f' } },
      })?.error,
    ).toMatchObject({
      message: "Missing required parameter: 'tool_choice.name'.",
      param: 'tool_choice.name',
      code: 'missing_required_parameter',
    });
    expect(
      check('openai.responses', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })?.error,
    ).toMatchObject({
      code: 'unsupported_parameter',
      message: expect.stringContaining("In the Responses API, this parameter has moved to 'input'."),
    });
    // The Responses shapes of the same things.
    expect(
      at({
        max_output_tokens: 300,
        text: { format: { type: 'text' } },
        stream: true,
        stream_options: { include_obfuscation: false },
        tools: [{ type: 'function', name: 'f' }],
        tool_choice: { type: 'function', name: 'f' },
        store: false,
      }),
    ).toBeUndefined();
  });

  it('tool_choice "required" with no tools', () => {
    expect(
      check('openai.responses', { model: 'gpt-4o', input: 'hi', tool_choice: 'required' })?.error,
    ).toEqual({
      status: 400,
      type: 'invalid_request_error',
      message: "Tool choice 'required' must be specified with 'tools' parameter.",
      param: 'tool_choice',
    });
    const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }];
    expect(
      check('openai.responses', { model: 'gpt-4o', input: 'hi', tools, tool_choice: 'required' }),
    ).toBeUndefined();
    expect(check('openai.responses', { model: 'gpt-4o', input: 'hi', tool_choice: 'auto' })).toBeUndefined();
  });

  it('JSON mode needs the word in the input messages: the instructions do not count', () => {
    const body = {
      model: 'gpt-4o',
      instructions: 'Answer in JSON.',
      text: { format: { type: 'json_object' } },
    };
    expect(check('openai.responses', { ...body, input: 'hi' })?.error).toEqual({
      status: 400,
      type: 'invalid_request_error',
      message:
        "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
      param: 'text.format',
    });
    expect(check('openai.responses', { ...body, input: 'hi, as JSON' })).toBeUndefined();
    expect(
      check('openai.responses', {
        ...body,
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'give me json' }] }],
      }),
    ).toBeUndefined();
  });

  it('ranges, max_output_tokens of at least 16, temperature on o-series', () => {
    expect(
      check('openai.responses', { model: 'gpt-4o', input: 'hi', max_output_tokens: 10 })?.error?.message,
    ).toBe(
      "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 10 instead.",
    );
    expect(check('openai.responses', { model: 'o3', input: 'hi', temperature: 0.5 })?.error).toEqual({
      status: 400,
      type: 'invalid_request_error',
      message: "Unsupported parameter: 'temperature' is not supported with this model.",
      param: 'temperature',
    });
    expect(check('openai.responses', { model: 'o3', input: 'hi', top_p: 0.5 })?.error?.message).toBe(
      "Unsupported parameter: 'top_p' is not supported with this model.",
    );
    expect(check('openai.responses', { model: 'gpt-4o', input: 'hi', top_p: 0.5 })).toBeUndefined();
    expect(check('openai.responses', { model: 'gpt-4o', input: 'hi', temperature: 0.5 })).toBeUndefined();
  });
});

describe('Anthropic Messages', () => {
  const base = { model: 'claude-sonnet-4-6', max_tokens: 4096, messages: ask };
  const message = (extra: Record<string, unknown>, beta = '') =>
    check('anthropic.messages', { ...base, ...extra }, base.model, beta)?.error?.message;

  it('no messages, a tool_result object, sampling out of range, both samplers on newer models', () => {
    expect(message({ messages: [] })).toBe('messages: at least one message is required');
    expect(
      message({
        messages: [
          ...ask,
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: { a: 1 } }] },
        ],
      }),
    ).toBe('messages.1.content.0.tool_result.content: Input should be a valid list');
    expect(message({ temperature: 1.5 })).toBe('temperature: range: 0..1');
    expect(message({ top_p: 2 })).toBe('top_p: range: 0..1');
    expect(message({ temperature: 0.5, top_p: 0.9 })).toBe(
      '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
    );
    expect(
      check('anthropic.messages', {
        ...base,
        model: 'claude-3-5-haiku-latest',
        temperature: 0.5,
        top_p: 0.9,
      }),
    ).toBeUndefined();
  });

  it("extended thinking's limits", () => {
    const thinking = (budget: number) => ({ thinking: { type: 'enabled', budget_tokens: budget } });
    expect(message(thinking(512))).toBe(
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    );
    expect(message({ ...thinking(4096) })).toMatch(
      /^`max_tokens` must be greater than `thinking.budget_tokens`/,
    );
    // Interleaved thinking spreads the budget over the turn.
    expect(message(thinking(4096), 'interleaved-thinking-2025-05-14')).toBeUndefined();
    expect(message({ ...thinking(2048), temperature: 0.2 })).toMatch(
      /^`temperature` may only be set to 1 when thinking is enabled/,
    );
    expect(message({ ...thinking(2048), tool_choice: { type: 'any' } })).toBe(
      'Thinking may not be enabled when tool_choice forces tool use.',
    );
    expect(message({ ...thinking(2048), temperature: 1, tool_choice: { type: 'auto' } })).toBeUndefined();
  });
});

describe('Gemini, Bedrock', () => {
  it('Gemini: empty parts, sampling and output limits per model', () => {
    const gemini = (extra: Record<string, unknown>, model = 'gemini-2.5-flash') =>
      check(
        'gemini.generateContent',
        { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra },
        model,
      )?.error?.message;
    expect(gemini({ contents: [{ role: 'user', parts: [] }] })).toBe(
      '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n',
    );
    expect(gemini({ generationConfig: { temperature: 5 } })).toBe(
      'Unable to submit request because it has a temperature value of 5 but the supported range is from 0 (inclusive) to 2.0001 (exclusive). Update the value and try again.',
    );
    expect(gemini({ generation_config: { top_p: 1.5 } })).toContain('topP value of 1.5');
    expect(gemini({ generationConfig: { maxOutputTokens: 100000 } })).toContain('to 65537 (exclusive)');
    expect(gemini({ generationConfig: { maxOutputTokens: 10000 } }, 'gemini-2.0-flash')).toContain(
      'to 8193 (exclusive)',
    );
    expect(gemini({ generationConfig: { temperature: 2, topP: 1, maxOutputTokens: 65536 } })).toBeUndefined();
  });

  it('Bedrock: inferenceConfig ranges in its validation words', () => {
    expect(
      check('bedrock.converse', { messages: [], inferenceConfig: { temperature: 1.5 } })?.error?.message,
    ).toBe(
      "1 validation error detected: Value '1.5' at 'inferenceConfig.temperature' failed to satisfy constraint: Member must have value less than or equal to 1",
    );
    expect(
      check('bedrock.converse', { messages: [], inferenceConfig: { maxTokens: 0 } })?.error?.message,
    ).toContain('Member must have value greater than or equal to 1');
    expect(
      check('bedrock.converse', { messages: [], inferenceConfig: { temperature: 1, topP: 0.9 } }),
    ).toBeUndefined();
  });

  it('nothing when the rule is off', () => {
    const facts: RequestFacts = {
      body: { model: 'gpt-4o', messages: [] },
      store: createConversationStore(),
      soleIssuer: true,
    };
    expect(checkParameters('openai.chat', facts, () => false, 'gpt-4o')).toBeUndefined();
  });
});

describe('embedding requests (refused by their codecs)', () => {
  const ctx = (path: string) => ({ path, query: new URLSearchParams(), store: createConversationStore() });

  it('OpenAI: dimensions above the model size, more than 2048 inputs', () => {
    const decode = (body: Record<string, unknown>) => openaiEmbeddings.decode(body, ctx('/embeddings'));
    expect(decode({ model: 'text-embedding-3-small', input: 'x', dimensions: 4096 })).toEqual({
      ok: false,
      error: {
        status: 400,
        type: 'invalid_request_error',
        message:
          "Invalid 'dimensions': integer above maximum value. Expected a value <= 1536, but got 4096 instead.",
        param: 'dimensions',
        code: 'integer_above_max_value',
      },
    });
    const inputs = (n: number) => Array.from({ length: n }, (_, i) => `doc ${i}`);
    expect(decode({ model: 'text-embedding-3-small', input: inputs(2049) })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^'\$\.input' is invalid\./) },
    });
    expect(decode({ model: 'text-embedding-3-large', input: inputs(2048), dimensions: 3072 }).ok).toBe(true);
    // A model the table does not know keeps any size (a gateway's own model).
    expect(decode({ model: 'my-embedder', input: 'x', dimensions: 8192 }).ok).toBe(true);
  });

  it('Gemini: more than 100 requests in one batch, outputDimensionality above the model size', () => {
    const request = { content: { parts: [{ text: 'x' }] } };
    const batch = (n: number, extra = {}) =>
      geminiEmbeddings.decode(
        { requests: Array.from({ length: n }, () => ({ ...request, ...extra })) },
        ctx('/v1beta/models/gemini-embedding-001:batchEmbedContents'),
      );
    expect(batch(101)).toMatchObject({
      ok: false,
      error: { message: '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n' },
    });
    expect(batch(1, { outputDimensionality: 4096 })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('outputDimensionality value of 4096') },
    });
    expect(batch(100, { outputDimensionality: 768 }).ok).toBe(true);
  });
});
