// Replies whose text comes after a tool call, from the installed package, through the official
// clients in whole agent loops (Responses, Anthropic, Gemini, Bedrock Converse): aimock's own example file (a call, then text) and a fixture file
// of ours that interleaves text and calls. Each client sees text and calls in the model's order,
// plain and streamed, in process and over the served port. The tests named "must fail" hold an
// agent that is wrong about that order; the driver checks each fails, and how.
const { expect, it } = require('./runner-globals.cjs');
const { writeFileSync, mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const OpenAI = require('openai').default;
const Anthropic = require('@anthropic-ai/sdk').default;
const { GoogleGenAI } = require('@google/genai');
const {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
} = require('@aws-sdk/client-bedrock-runtime');
const { understudy, loadFixtures } = require('jest-understudy');

const ASK = "what's the weather in NYC?";
const LATE = 'Let me check the weather in NYC for you.';
const ANSWER = 'Sunny and 22°C in NYC.';

// aimock's example as its package ships it.
const aimockRoot = dirname(dirname(require.resolve('@copilotkit/aimock')));
const EXAMPLE = join(aimockRoot, 'fixtures', 'examples', 'llm', 'blocks-tool-first.json');

/** The turn after the tool result (aimock's example answers the question, whatever the turn). */
const answered = { match: { userMessage: ASK, hasToolResult: true }, response: { content: ANSWER } };
const aimockTurns = () => [answered, ...loadFixtures(EXAMPLE)];

// Our own fixture format: text, a call, text, a call, text.
const ours = join(mkdtempSync(join(tmpdir(), 'ordered-blocks-')), 'interleaved.fixtures.json');
writeFileSync(
  ours,
  JSON.stringify({
    fixtures: [
      {
        match: { userMessage: 'NYC and Boston?', hasToolResult: false },
        response: {
          blocks: [
            { type: 'text', text: 'NYC first.' },
            { type: 'toolCall', name: 'get_weather', arguments: { city: 'NYC' } },
            { type: 'text', text: 'Now Boston.' },
            { type: 'toolCall', name: 'get_weather', arguments: { city: 'Boston' } },
            { type: 'text', text: 'Both asked.' },
          ],
        },
      },
      {
        match: { userMessage: 'NYC and Boston?', hasToolResult: true },
        response: { content: 'Both sunny.' },
      },
    ],
  }),
);
const INTERLEAVED = [
  'say:NYC first.',
  'call:get_weather NYC',
  'say:Now Boston.',
  'call:get_weather Boston',
  'say:Both asked.',
  'say:Both sunny.',
];

const weatherOf = (args) => ({ city: args.city, tempC: 22, sky: 'sunny' });
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

// ── agents: each says its texts and runs its calls in the order the model gave them ──
// `bug`: 'stops' treats a reply that ends in text as the final answer (and runs none of its
// calls); 'reorders' says all of a reply's text before running any call.

async function responsesAgent(client, question, { stream = false, bug } = {}) {
  const transcript = [];
  let input = [{ role: 'user', content: question }];
  const tools = [{ type: 'function', name: 'get_weather', parameters: schema, strict: false }];
  for (let step = 0; step < 4; step++) {
    const params = { model: 'gpt-4.1', input, tools };
    const response = stream
      ? await client.responses.stream(params).finalResponse()
      : await client.responses.create(params);
    const output = response.output;
    const calls = output.filter((o) => o.type === 'function_call');
    const say = (o) => transcript.push(`say:${o.content.map((c) => c.text).join('')}`);
    if (bug === 'stops' && output.at(-1).type === 'message') {
      for (const o of output) if (o.type === 'message') say(o);
      return transcript;
    }
    const results = [];
    const run = (o) => {
      const args = JSON.parse(o.arguments);
      transcript.push(`call:${o.name} ${args.city}`);
      results.push({
        type: 'function_call_output',
        call_id: o.call_id,
        output: JSON.stringify(weatherOf(args)),
      });
    };
    if (bug === 'reorders') {
      for (const o of output) if (o.type === 'message') say(o);
      for (const o of calls) run(o);
    } else for (const o of output) o.type === 'message' ? say(o) : o.type === 'function_call' && run(o);
    if (calls.length === 0) return transcript;
    input = [...input, ...output, ...results];
  }
  throw new Error('the agent gave up');
}

async function anthropicAgent(client, question, { stream = false, bug } = {}) {
  const transcript = [];
  const messages = [{ role: 'user', content: question }];
  const tools = [{ name: 'get_weather', input_schema: schema }];
  for (let step = 0; step < 4; step++) {
    const params = { model: 'claude-sonnet-4-6', max_tokens: 512, tools, messages };
    const message = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params);
    const blocks = message.content;
    if (bug === 'stops' && blocks.at(-1).type === 'text') {
      for (const b of blocks) if (b.type === 'text') transcript.push(`say:${b.text}`);
      return transcript;
    }
    const results = [];
    const run = (b) => {
      transcript.push(`call:${b.name} ${b.input.city}`);
      results.push({ type: 'tool_result', tool_use_id: b.id, content: JSON.stringify(weatherOf(b.input)) });
    };
    if (bug === 'reorders') {
      for (const b of blocks) if (b.type === 'text') transcript.push(`say:${b.text}`);
      for (const b of blocks) if (b.type === 'tool_use') run(b);
    } else
      for (const b of blocks)
        b.type === 'text' ? transcript.push(`say:${b.text}`) : b.type === 'tool_use' && run(b);
    if (results.length === 0) return transcript;
    messages.push({ role: 'assistant', content: blocks }, { role: 'user', content: results });
  }
  throw new Error('the agent gave up');
}

/** Gemini: parts in order; a streamed reply's text parts arrive in pieces, joined while they run on. */
async function geminiAgent(ai, question, { stream = false } = {}) {
  const transcript = [];
  const contents = [{ role: 'user', parts: [{ text: question }] }];
  const config = {
    tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: schema }] }],
  };
  for (let step = 0; step < 4; step++) {
    const params = { model: 'gemini-2.5-flash', contents, config };
    const parts = [];
    if (stream)
      for await (const chunk of await ai.models.generateContentStream(params))
        parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    else parts.push(...((await ai.models.generateContent(params)).candidates?.[0]?.content?.parts ?? []));
    const responses = [];
    let text = '';
    const flush = () => {
      if (text) transcript.push(`say:${text}`);
      text = '';
    };
    for (const p of parts) {
      if (p.functionCall) {
        flush();
        transcript.push(`call:${p.functionCall.name} ${p.functionCall.args.city}`);
        responses.push({
          functionResponse: {
            id: p.functionCall.id,
            name: p.functionCall.name,
            response: weatherOf(p.functionCall.args),
          },
        });
      } else if (typeof p.text === 'string') text += p.text;
    }
    flush();
    if (responses.length === 0) return transcript;
    contents.push({ role: 'model', parts }, { role: 'user', parts: responses });
  }
  throw new Error('the agent gave up');
}

/** Bedrock Converse: content blocks in order; a streamed reply is put back together by block index. */
async function bedrockAgent(client, question, { stream = false } = {}) {
  const transcript = [];
  const messages = [{ role: 'user', content: [{ text: question }] }];
  const toolConfig = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: schema } } }] };
  for (let step = 0; step < 4; step++) {
    const input = { modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0', messages, toolConfig };
    let content;
    if (stream) {
      content = [];
      const out = await client.send(new ConverseStreamCommand(input));
      for await (const event of out.stream) {
        const start = event.contentBlockStart;
        if (start?.start?.toolUse)
          content[start.contentBlockIndex] = { toolUse: { ...start.start.toolUse, input: '' } };
        const delta = event.contentBlockDelta;
        if (delta?.delta?.text !== undefined)
          content[delta.contentBlockIndex] = {
            text: (content[delta.contentBlockIndex]?.text ?? '') + delta.delta.text,
          };
        if (delta?.delta?.toolUse)
          content[delta.contentBlockIndex].toolUse.input += delta.delta.toolUse.input;
      }
      for (const block of content) if (block.toolUse) block.toolUse.input = JSON.parse(block.toolUse.input);
    } else content = (await client.send(new ConverseCommand(input))).output.message.content;
    const results = [];
    for (const block of content) {
      if (block.text !== undefined) transcript.push(`say:${block.text}`);
      else if (block.toolUse) {
        transcript.push(`call:${block.toolUse.name} ${block.toolUse.input.city}`);
        results.push({
          toolResult: {
            toolUseId: block.toolUse.toolUseId,
            content: [{ json: weatherOf(block.toolUse.input) }],
          },
        });
      }
    }
    if (results.length === 0) return transcript;
    messages.push({ role: 'assistant', content }, { role: 'user', content: results });
  }
  throw new Error('the agent gave up');
}

const AIMOCK_LOOP = ['call:get_weather NYC', `say:${LATE}`, `say:${ANSWER}`];

for (const stream of [false, true]) {
  const how = stream ? 'streamed' : 'plain';

  it(`${how}: Responses: aimock's example, the call then the text, in a whole loop`, async () => {
    understudy.model.use(aimockTurns());
    const run = await understudy.run(() => responsesAgent(new OpenAI({ maxRetries: 0 }), ASK, { stream }));
    expect(run.output).toEqual(AIMOCK_LOOP);
    expect(run).toHaveCalledTool('get_weather', { city: 'NYC' });
    expect(run).toHaveFinalMessage(ANSWER);
    expect(run.modelCalls.map((c) => [c.protocol, c.streamed])).toEqual([
      ['openai.responses', stream],
      ['openai.responses', stream],
    ]);
  });

  it(`${how}: Anthropic: aimock's example, the call then the text, in a whole loop`, async () => {
    understudy.model.use(aimockTurns());
    const run = await understudy.run(() => anthropicAgent(new Anthropic({ maxRetries: 0 }), ASK, { stream }));
    expect(run.output).toEqual(AIMOCK_LOOP);
    expect(run).toHaveCalledTool('get_weather', { city: 'NYC' });
    expect(run).toHaveTerminalState('succeeded');
  });

  it(`${how}: Gemini: aimock's example, the call then the text, in a whole loop`, async () => {
    understudy.model.use(aimockTurns());
    const run = await understudy.run(() => geminiAgent(new GoogleGenAI({ apiKey: 'x' }), ASK, { stream }));
    expect(run.output).toEqual(AIMOCK_LOOP);
    expect(run).toHaveCalledTool('get_weather', { city: 'NYC' });
  });

  it(`${how}: Bedrock Converse: aimock's example, the call then the text, in a whole loop`, async () => {
    understudy.model.use(aimockTurns());
    const run = await understudy.run(() =>
      bedrockAgent(new BedrockRuntimeClient({ maxAttempts: 1 }), ASK, { stream }),
    );
    expect(run.output).toEqual(AIMOCK_LOOP);
    expect(run).toHaveCalledTool('get_weather', { city: 'NYC' });
  });

  it(`${how}: our own blocks interleave text and calls, on each protocol`, async () => {
    understudy.model.use(loadFixtures(ours));
    const openai = await understudy.run(() =>
      responsesAgent(new OpenAI({ maxRetries: 0 }), 'NYC and Boston?', { stream }),
    );
    const anthropic = await understudy.run(() =>
      anthropicAgent(new Anthropic({ maxRetries: 0 }), 'NYC and Boston?', { stream }),
    );
    const gemini = await understudy.run(() =>
      geminiAgent(new GoogleGenAI({ apiKey: 'x' }), 'NYC and Boston?', { stream }),
    );
    const bedrock = await understudy.run(() =>
      bedrockAgent(new BedrockRuntimeClient({ maxAttempts: 1 }), 'NYC and Boston?', { stream }),
    );
    for (const run of [openai, anthropic, gemini, bedrock]) {
      expect(run.output).toEqual(INTERLEAVED);
      expect(run).toHaveCalledToolSequence([
        { name: 'get_weather', args: { city: 'NYC' } },
        { name: 'get_weather', args: { city: 'Boston' } },
      ]);
    }
  });

  it(`${how} must fail: an Anthropic agent that takes text after a call for the final answer`, async () => {
    understudy.model.use(aimockTurns());
    const run = await understudy.run(() =>
      anthropicAgent(new Anthropic({ maxRetries: 0 }), ASK, { stream, bug: 'stops' }),
    );
    expect(run).toHaveCalledTool('get_weather', { city: 'NYC' });
  });

  it(`${how} must fail: a Responses agent that takes text after a call for the final answer`, async () => {
    understudy.model.use(aimockTurns());
    const run = await understudy.run(() =>
      responsesAgent(new OpenAI({ maxRetries: 0 }), ASK, { stream, bug: 'stops' }),
    );
    expect(run).toHaveTerminalState('succeeded');
  });

  it(`${how} must fail: an agent that says a reply's text before its calls`, async () => {
    understudy.model.use(loadFixtures(ours));
    const run = await understudy.run(() =>
      anthropicAgent(new Anthropic({ maxRetries: 0 }), 'NYC and Boston?', { stream, bug: 'reorders' }),
    );
    // Both orders in full, whatever the runner truncates in its own diff.
    const said = run.output.join(' | ');
    if (said !== INTERLEAVED.join(' | '))
      throw new Error(`the agent said: ${said}\nthe model said: ${INTERLEAVED.join(' | ')}`);
  });
}

it('over the served port: the Anthropic and Responses loops, streamed, credited to the run', async () => {
  understudy.model.use(aimockTurns());
  const served = await understudy.serve();
  const anthropic = await understudy.run(() =>
    anthropicAgent(new Anthropic({ maxRetries: 0, baseURL: served.urls.anthropic }), ASK, { stream: true }),
  );
  const openai = await understudy.run(() =>
    responsesAgent(new OpenAI({ maxRetries: 0, baseURL: `${served.urls.openai}` }), ASK, { stream: true }),
  );
  for (const run of [anthropic, openai]) {
    expect(run.output).toEqual(AIMOCK_LOOP);
    expect(run.modelCalls).toHaveLength(2);
  }
});
