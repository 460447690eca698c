// One turn of an agent per real client, reading the reply the way a careful agent does and
// keeping exactly what reached it: the text, and each tool call with the argument text that
// arrived. An agent that swallows the client's error returns what it had (so the run ends
// without throwing); `stopWhen(received)` makes it give up mid-stream, by aborting its
// request (`stopBy: 'abort'`, an AbortController handed to the SDK) or by leaving the loop
// (`stopBy: 'break'`), or `abortAfterMs` after it asked. `baseURL` and `model` reach a stand-in
// provider. Used in process by the delivered-*.case.js files and, through
// delivered-child.cjs, by a client in another process over the served port.
const QUESTION = 'Send alice 100 and tell me the weather in Paris.';

/** The reply the delivered-*.case.js files script: text, then two parallel tool calls. */
const TEXT = 'It is 18 C in Paris. A storm is coming, stay inside.';
const CALLS = [
  { name: 'transfer', arguments: { to: 'alice', amount: 100 } },
  { name: 'notify', arguments: { user: 'alice', note: 'sent 100' } },
];
/** That reply as the only fixture, in chunks of 4 characters, shaped as given. */
const reply = (shaping) => [
  { match: {}, response: { chunkSize: 4, content: TEXT, toolCalls: CALLS, ...shaping } },
];

const schema = (properties) => ({ type: 'object', properties });
const TOOLS = [
  { name: 'transfer', parameters: schema({ to: { type: 'string' }, amount: { type: 'number' } }) },
  { name: 'notify', parameters: schema({ user: { type: 'string' }, note: { type: 'string' } }) },
];

function received() {
  return { text: '', calls: [], error: null };
}

/** Runs `consume(signal, stop)` and keeps whatever arrived when it throws or stops. */
async function reading(options, got, consume) {
  const controller = new AbortController();
  let stopped = false;
  const stop = () => {
    if (stopped || !options.stopWhen || !options.stopWhen(got)) return false;
    stopped = true;
    if ((options.stopBy ?? 'abort') === 'abort') controller.abort();
    return true;
  };
  const timer =
    options.abortAfterMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(), options.abortAfterMs);
  try {
    await consume(controller.signal, stop);
  } catch (error) {
    got.error = `${error?.name ?? 'Error'}: ${String(error?.message).slice(0, 200)}`;
  } finally {
    clearTimeout(timer);
  }
  return got;
}

const breaks = (options) => options.stopBy === 'break';

async function openaiChat(options = {}) {
  const OpenAI = require('openai').default ?? require('openai');
  const client = new OpenAI({ maxRetries: 0, ...(options.baseURL && { baseURL: options.baseURL }) });
  const params = {
    model: options.model ?? 'gpt-4o-mini',
    messages: [{ role: 'user', content: QUESTION }],
    tools: TOOLS.map((t) => ({ type: 'function', function: t })),
  };
  const got = received();
  return reading(options, got, async (signal, stop) => {
    if (!options.stream) {
      const message = (await client.chat.completions.create(params, { signal })).choices[0].message;
      got.text = message.content ?? '';
      got.calls = (message.tool_calls ?? []).map((c) => ({
        name: c.function.name,
        args: c.function.arguments,
      }));
      return;
    }
    const stream = await client.chat.completions.create({ ...params, stream: true }, { signal });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta ?? {};
      got.text += delta.content ?? '';
      for (const d of delta.tool_calls ?? []) {
        got.calls[d.index] ??= { name: '', args: '' };
        got.calls[d.index].name += d.function?.name ?? '';
        got.calls[d.index].args += d.function?.arguments ?? '';
      }
      if (stop() && breaks(options)) break;
    }
  });
}

async function openaiResponses(options = {}) {
  const OpenAI = require('openai').default ?? require('openai');
  const client = new OpenAI({ maxRetries: 0, ...(options.baseURL && { baseURL: options.baseURL }) });
  const params = {
    model: 'gpt-4o-mini',
    input: QUESTION,
    tools: TOOLS.map((t) => ({ type: 'function', strict: false, ...t })),
  };
  const got = received();
  return reading(options, got, async (signal, stop) => {
    if (!options.stream) {
      const response = await client.responses.create(params, { signal });
      got.text = response.output_text;
      got.calls = response.output
        .filter((o) => o.type === 'function_call')
        .map((o) => ({ name: o.name, args: o.arguments }));
      return;
    }
    const byIndex = [];
    const stream = await client.responses.create({ ...params, stream: true }, { signal });
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') got.text += event.delta;
      else if (event.type === 'response.output_item.added' && event.item.type === 'function_call') {
        byIndex[event.output_index] = { name: event.item.name, args: '' };
        got.calls.push(byIndex[event.output_index]);
      } else if (event.type === 'response.function_call_arguments.delta')
        byIndex[event.output_index].args += event.delta;
      else if (event.type === 'response.failed' || event.type === 'error') got.error = event.type;
      if (stop() && breaks(options)) break;
    }
  });
}

async function anthropic(options = {}) {
  const Anthropic = require('@anthropic-ai/sdk').default ?? require('@anthropic-ai/sdk');
  const client = new Anthropic({ maxRetries: 0, ...(options.baseURL && { baseURL: options.baseURL }) });
  const params = {
    model: options.model ?? 'claude-sonnet-4-6',
    max_tokens: 1024,
    messages: [{ role: 'user', content: QUESTION }],
    tools: TOOLS.map((t) => ({ name: t.name, input_schema: t.parameters })),
  };
  const got = received();
  return reading(options, got, async (signal, stop) => {
    if (!options.stream) {
      const message = await client.messages.create(params, { signal });
      for (const block of message.content) {
        if (block.type === 'text') got.text += block.text;
        if (block.type === 'tool_use')
          got.calls.push({ name: block.name, args: JSON.stringify(block.input) });
      }
      return;
    }
    const byIndex = [];
    const stream = await client.messages.create({ ...params, stream: true }, { signal });
    for await (const event of stream) {
      if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
        byIndex[event.index] = { name: event.content_block.name, args: '' };
        got.calls.push(byIndex[event.index]);
      } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        got.text += event.delta.text;
      else if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
        byIndex[event.index].args += event.delta.partial_json;
      if (stop() && breaks(options)) break;
    }
  });
}

async function gemini(options = {}) {
  const { GoogleGenAI } = require('@google/genai');
  const ai = new GoogleGenAI({
    apiKey: 'x',
    ...(options.baseURL && { httpOptions: { baseUrl: options.baseURL } }),
  });
  const got = received();
  return reading(options, got, async (signal, stop) => {
    const request = {
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ text: QUESTION }] }],
      config: {
        abortSignal: signal,
        tools: [
          { functionDeclarations: TOOLS.map((t) => ({ name: t.name, parametersJsonSchema: t.parameters })) },
        ],
      },
    };
    const take = (parts) => {
      for (const part of parts ?? []) {
        if (part.functionCall)
          got.calls.push({
            name: part.functionCall.name,
            args: JSON.stringify(part.functionCall.args ?? {}),
          });
        else if (typeof part.text === 'string') got.text += part.text;
      }
    };
    if (!options.stream) {
      take((await ai.models.generateContent(request)).candidates?.[0]?.content?.parts);
      return;
    }
    for await (const chunk of await ai.models.generateContentStream(request)) {
      take(chunk.candidates?.[0]?.content?.parts);
      if (stop() && breaks(options)) break;
    }
  });
}

async function bedrock(options = {}) {
  const {
    BedrockRuntimeClient,
    ConverseCommand,
    ConverseStreamCommand,
  } = require('@aws-sdk/client-bedrock-runtime');
  const client = new BedrockRuntimeClient({ maxAttempts: 1 });
  const params = {
    modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    messages: [{ role: 'user', content: [{ text: QUESTION }] }],
    toolConfig: {
      tools: TOOLS.map((t) => ({ toolSpec: { name: t.name, inputSchema: { json: t.parameters } } })),
    },
  };
  const got = received();
  return reading(options, got, async (signal, stop) => {
    if (!options.stream) {
      const out = await client.send(new ConverseCommand(params), { abortSignal: signal });
      for (const block of out.output.message.content) {
        if (block.text !== undefined) got.text += block.text;
        if (block.toolUse)
          got.calls.push({ name: block.toolUse.name, args: JSON.stringify(block.toolUse.input) });
      }
      return;
    }
    const byIndex = [];
    const out = await client.send(new ConverseStreamCommand(params), { abortSignal: signal });
    for await (const event of out.stream) {
      const start = event.contentBlockStart;
      const delta = event.contentBlockDelta;
      if (start?.start?.toolUse) {
        byIndex[start.contentBlockIndex] = { name: start.start.toolUse.name, args: '' };
        got.calls.push(byIndex[start.contentBlockIndex]);
      } else if (delta?.delta?.text !== undefined) got.text += delta.delta.text;
      else if (delta?.delta?.toolUse)
        byIndex[delta.contentBlockIndex].args += delta.delta.toolUse.input ?? '';
      if (stop() && breaks(options)) break;
    }
  });
}

module.exports = {
  QUESTION,
  TEXT,
  CALLS,
  reply,
  agents: {
    'openai.chat': openaiChat,
    'openai.responses': openaiResponses,
    'anthropic.messages': anthropic,
    'gemini.generateContent': gemini,
    'bedrock.converse': bedrock,
  },
};
