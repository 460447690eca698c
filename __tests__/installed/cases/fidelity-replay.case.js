// Replay gives back what was recorded: a two-turn tool loop per protocol, plain and streamed,
// through each official SDK, run once in record mode against a stand-in provider and once in
// replay mode against the cassette, in process and over the served port (Bedrock is not served there). Each test writes what the SDK returned for every call to
// RUN_OUT/<PHASE>/<test>.json; the driver compares the two phases field by field. The loops
// hand back what the SDK returned (thinking with its signature, Gemini's parts with their
// thought signatures, Responses' encrypted reasoning), as agents do.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const Anthropic = require('@anthropic-ai/sdk');
const { GoogleGenAI } = require('@google/genai');
const {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
} = require('@aws-sdk/client-bedrock-runtime');
const { understudy } = require('jest-understudy');

const UP = process.env.UPSTREAM_URL;
/** The provider URLs the clients are given in process: the stand-in's (the mock answers them on replay). */
const DIRECT = {
  openai: `${UP}/openai/v1`,
  anthropic: `${UP}/anthropic`,
  gemini: `${UP}/gemini`,
  bedrock: `${UP}/bedrock`,
};
const QUESTION = 'What is the weather in Paris?';
const RESULT = JSON.stringify({ city: 'Paris', tempC: 18 });
const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** A plain JSON copy of what the SDK returned (class instances, getters and all). */
const plain = (value) => JSON.parse(JSON.stringify(value));

function save(name, returned) {
  const dir = join(process.env.RUN_OUT, process.env.PHASE);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(returned, null, 2));
}

async function chatLoop(stream, urls) {
  const client = new OpenAI({ baseURL: urls.openai, maxRetries: 0 });
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters } }];
  const messages = [{ role: 'user', content: QUESTION }];
  const returned = [];
  for (;;) {
    const completion = stream
      ? await client.chat.completions
          .stream({ model: 'gpt-4o', messages, tools, stream_options: { include_usage: true } })
          .finalChatCompletion()
      : await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    returned.push(plain(completion));
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return returned;
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: RESULT });
  }
}

async function responsesLoop(stream, urls) {
  const client = new OpenAI({ baseURL: urls.openai, maxRetries: 0 });
  const tools = [{ type: 'function', name: 'get_weather', parameters, strict: false }];
  const input = [{ role: 'user', content: QUESTION }];
  const returned = [];
  for (;;) {
    const body = {
      model: 'o4-mini',
      input,
      tools,
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'medium', summary: 'auto' },
    };
    const response = stream
      ? await client.responses.stream(body).finalResponse()
      : await client.responses.create(body);
    returned.push(plain(response));
    // Stateless: the output items (the encrypted reasoning with them) go back in the next input.
    input.push(...response.output);
    const calls = response.output.filter((o) => o.type === 'function_call');
    if (calls.length === 0) return returned;
    for (const call of calls)
      input.push({ type: 'function_call_output', call_id: call.call_id, output: RESULT });
  }
}

async function anthropicLoop(stream, urls) {
  const client = new Anthropic({ baseURL: urls.anthropic, maxRetries: 0 });
  const tools = [{ name: 'get_weather', input_schema: parameters }];
  const messages = [{ role: 'user', content: QUESTION }];
  const returned = [];
  for (;;) {
    const params = {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages,
      tools,
    };
    const message = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params);
    returned.push(plain(message));
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) return returned;
    messages.push({
      role: 'user',
      content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: RESULT })),
    });
  }
}

/**
 * Gemini streams chunks: what an agent keeps of them is the parts in order (text split across
 * chunks joined again: where a stream splits its text is not part of the answer) and the last
 * chunk's facts.
 */
function merged(chunks) {
  const last = chunks.at(-1);
  const parts = [];
  for (const part of chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])) {
    const previous = parts.at(-1);
    const text = (p) => Object.keys(p).length === 1 && typeof p.text === 'string';
    if (previous && text(previous) && text(part))
      parts[parts.length - 1] = { text: previous.text + part.text };
    else parts.push(part);
  }
  return plain({
    parts,
    text: chunks.map((c) => c.text ?? '').join(''),
    functionCalls: chunks.flatMap((c) => c.functionCalls ?? []),
    finishReason: last.candidates?.[0]?.finishReason,
    usageMetadata: last.usageMetadata,
    modelVersion: last.modelVersion,
    responseId: last.responseId,
  });
}

async function geminiLoop(stream, urls) {
  const ai = new GoogleGenAI({
    apiKey: process.env.GEMINI_API_KEY,
    httpOptions: { baseUrl: urls.gemini },
  });
  const config = {
    tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: parameters }] }],
  };
  const contents = [{ role: 'user', parts: [{ text: QUESTION }] }];
  const returned = [];
  for (;;) {
    const request = { model: 'gemini-2.5-flash', contents, config };
    let parts;
    let calls;
    if (stream) {
      const chunks = [];
      for await (const chunk of await ai.models.generateContentStream(request)) chunks.push(chunk);
      const all = merged(chunks);
      returned.push(all);
      parts = all.parts;
      calls = all.functionCalls;
    } else {
      const response = await ai.models.generateContent(request);
      const { sdkHttpResponse: _headers, ...rest } = plain(response);
      returned.push({ ...rest, text: response.text ?? null, functionCalls: response.functionCalls ?? [] });
      parts = response.candidates[0].content.parts;
      calls = response.functionCalls ?? [];
    }
    // The model's parts go back as they came (signatures and ids included), as the SDK's chats do.
    contents.push({ role: 'model', parts });
    if (calls.length === 0) return returned;
    contents.push({
      role: 'user',
      parts: calls.map((c) => ({
        functionResponse: { ...(c.id ? { id: c.id } : {}), name: c.name, response: JSON.parse(RESULT) },
      })),
    });
  }
}

async function bedrockLoop(stream, urls) {
  const client = new BedrockRuntimeClient({ region: 'us-east-1', endpoint: urls.bedrock });
  const modelId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
  const toolConfig = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: parameters } } }] };
  const messages = [{ role: 'user', content: [{ text: QUESTION }] }];
  const returned = [];
  for (;;) {
    let content;
    if (stream) {
      const out = await client.send(new ConverseStreamCommand({ modelId, messages, toolConfig }));
      const blocks = [];
      const rest = {};
      for await (const e of out.stream) {
        if (e.contentBlockStart)
          blocks[e.contentBlockStart.contentBlockIndex] = {
            toolUse: { ...e.contentBlockStart.start.toolUse, input: '' },
          };
        else if (e.contentBlockDelta) {
          const at = e.contentBlockDelta.contentBlockIndex;
          const d = e.contentBlockDelta.delta;
          if (d.text !== undefined) blocks[at] = { text: (blocks[at]?.text ?? '') + d.text };
          else if (d.toolUse) blocks[at].toolUse.input += d.toolUse.input;
          else if (d.reasoningContent) {
            blocks[at] ??= { reasoningContent: { reasoningText: { text: '' } } };
            const r = blocks[at].reasoningContent.reasoningText;
            if (d.reasoningContent.text !== undefined) r.text += d.reasoningContent.text;
            if (d.reasoningContent.signature !== undefined) r.signature = d.reasoningContent.signature;
          }
        } else if (e.messageStop) rest.stopReason = e.messageStop.stopReason;
        else if (e.metadata) Object.assign(rest, { usage: e.metadata.usage, metrics: e.metadata.metrics });
      }
      content = blocks.map((b) =>
        b.toolUse ? { toolUse: { ...b.toolUse, input: JSON.parse(b.toolUse.input) } } : b,
      );
      returned.push(plain({ content, ...rest, requestId: out.$metadata.requestId }));
    } else {
      const out = await client.send(new ConverseCommand({ modelId, messages, toolConfig }));
      returned.push(plain(out));
      content = out.output.message.content;
    }
    messages.push({ role: 'assistant', content });
    const uses = content.filter((b) => b.toolUse);
    if (uses.length === 0) return returned;
    messages.push({
      role: 'user',
      content: uses.map((u) => ({
        toolResult: { toolUseId: u.toolUse.toolUseId, content: [{ json: JSON.parse(RESULT) }] },
      })),
    });
  }
}

const LOOPS = {
  chat: chatLoop,
  responses: responsesLoop,
  anthropic: anthropicLoop,
  gemini: geminiLoop,
  bedrock: bedrockLoop,
};

for (const [name, loop] of Object.entries(LOOPS))
  for (const served of name === 'bedrock' ? [false] : [false, true])
    for (const stream of [false, true]) {
      const variant = `${name}-${stream ? 'streamed' : 'plain'}${served ? '-served' : ''}`;
      it(variant, async () => {
        // The served port records from the provider's own host, not the stand-in: the served
        // variants record in process, and replay over the port.
        const port = served && process.env.PHASE === 'replay' ? await understudy.serve() : undefined;
        // The served URLs are read inside the run: they carry its token.
        const run = await understudy.run(() => loop(stream, port ? port.urls : DIRECT));
        expect(run).toHaveTerminalState('succeeded');
        expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
        expect(run.modelCalls).toHaveLength(2);
        save(variant, {
          returned: run.output,
          toolCalls: run.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
          finalMessage: run.finalMessage,
        });
      });
    }
