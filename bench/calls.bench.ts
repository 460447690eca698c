/**
 * Runs inside a real Jest sandbox under jest-understudy's environment (bench/jest.bench.config.ts),
 * started by `npm run bench`. Times the official SDKs (openai: Chat Completions and Responses,
 * @anthropic-ai/sdk: Messages, @google/genai: generateContentStream) replaying the same canned
 * replies through the environment and through the in-process floor (the SDK given a custom `fetch`
 * that returns the bytes the environment served for that request), and writes the raw samples as
 * JSON to $UNDERSTUDY_BENCH_OUT. It asserts that every target returns the same reply, never on time.
 */
import { writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import Anthropic from '@anthropic-ai/sdk';
import { BedrockRuntimeClient, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { GoogleGenAI } from '@google/genai';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import {
  createClient,
  DEFAULT_PLAN,
  type Fetch,
  makeCall,
  measure,
  PROTOCOLS,
  summarize,
  understudyFixtures,
  VARIANTS,
} from './driver.cjs';

interface Canned {
  status: number;
  contentType: string;
  url: string;
  body: string;
}

const out = process.env.UNDERSTUDY_BENCH_OUT;
const plan = process.env.UNDERSTUDY_BENCH_PLAN ? JSON.parse(process.env.UNDERSTUDY_BENCH_PLAN) : DEFAULT_PLAN;
// The sandbox's SDK classes (loaded through Jest's module registry, as a test's would be).
const sdks = { OpenAI, Anthropic, GoogleGenAI };

it('replays the same calls through the environment and the in-process floor', async () => {
  understudy.model.use(understudyFixtures());

  const canned: Record<string, Canned> = {};
  const summaries: Record<string, unknown> = {};
  const calls: Record<string, { environment: () => Promise<unknown>; floor: () => Promise<unknown> }> = {};
  for (const variant of VARIANTS) {
    // SDK client on the sandbox's global fetch: the environment's.
    const environment = createClient(variant.protocol, sdks);
    // The bytes the environment serves for this SDK request, captured once by a client whose fetch
    // passes the request to the environment's fetch and keeps the response; the floor returns them.
    let captured: Canned | undefined;
    const tee: Fetch = async (input, init) => {
      const served = await fetch(input, init);
      const body = await served.text();
      const contentType = served.headers.get('content-type') ?? '';
      captured = { status: served.status, contentType, url: String(input), body };
      return new Response(body, { status: served.status, headers: { 'content-type': contentType } });
    };
    const summary = await summarize(createClient(variant.protocol, sdks, { fetch: tee }), variant);
    const c = captured as Canned | undefined;
    if (!c) throw new Error(`${variant.id}: the SDK made no request`);
    expect(c.status).toBe(200);
    canned[variant.id] = c;
    const floor = createClient(variant.protocol, sdks, {
      fetch: async () => new Response(c.body, { status: 200, headers: { 'content-type': c.contentType } }),
    });

    expect(summary.toolCalls.length + (summary.content === null ? 0 : 1)).toBeGreaterThan(0);
    expect(await summarize(environment, variant)).toEqual(summary);
    // Served by this protocol's codec, from the fixture (not by a fallback).
    const call = understudy.model.calls.at(-1);
    expect([call?.protocol, call?.streamed, call?.unmatched]).toEqual([
      PROTOCOLS[variant.protocol].codec,
      variant.stream,
      false,
    ]);
    expect(await summarize(floor, variant)).toEqual(summary);
    summaries[variant.id] = summary;
    calls[variant.id] = { environment: makeCall(environment, variant), floor: makeCall(floor, variant) };
  }

  // Every variant warms up before any is timed, so the first one measured is not the coldest.
  for (const variant of VARIANTS)
    await measure(calls[variant.id], { warmup: plan.prewarm ?? plan.warmup, calls: 0 });
  const samples: Record<string, { environment: number[]; floor: number[] }> = {};
  const cpu: Record<string, { environment: number[]; floor: number[] }> = {};
  for (const variant of VARIANTS) {
    const m = await measure(calls[variant.id], plan);
    samples[variant.id] = m.wall;
    cpu[variant.id] = m.cpu;
  }
  expect(understudy.model.unmatched).toHaveLength(0);

  const contracts = await measureContracts(calls);
  const surface = await measureSurface();
  const result = {
    plan,
    canned,
    summaries,
    samples,
    cpu,
    contracts,
    surface,
    modelCalls: understudy.model.calls.length,
  };
  if (out) writeFileSync(out, JSON.stringify(result));
}, 600_000);

/**
 * What request contracts cost: each reply through the environment with every rule on (the
 * default) and with `understudy.model.contracts(false)`, alternating call by call. Besides the
 * first-turn requests of the main figures, two mid-loop requests (the parallel calls and their
 * results in the history) give the pairing and reasoning rules something to walk.
 */
async function measureContracts(calls: Record<string, { environment: () => Promise<unknown> }>): Promise<{
  samples: Record<string, { on: number[]; off: number[] }>;
  cpu: Record<string, { on: number[]; off: number[] }>;
}> {
  const loops = midLoopCalls();
  const targets: Record<string, () => Promise<unknown>> = {
    ...Object.fromEntries(Object.entries(calls).map(([id, c]) => [id, c.environment])),
    ...loops,
  };
  const samples: Record<string, { on: number[]; off: number[] }> = {};
  const cpu: Record<string, { on: number[]; off: number[] }> = {};
  for (const [id, call] of Object.entries(targets)) {
    const off = async () => {
      understudy.model.contracts(false);
      try {
        return await call();
      } finally {
        understudy.model.contracts(true);
      }
    };
    const m = await measure({ on: call, off }, plan);
    samples[id] = { on: m.wall.on, off: m.wall.off };
    cpu[id] = { on: m.cpu.on, off: m.cpu.off };
  }
  // Every call passed its contracts: nothing was refused while the rules were on.
  expect(understudy.model.calls.filter((c) => c.contract)).toEqual([]);
  return { samples, cpu };
}

/**
 * More of the surface, environment vs in-process floor only (aimock and a bare msw handler are
 * not set up for them): Bedrock ConverseStream through the AWS SDK, whose node:http request the
 * environment serves through msw, against a request handler that returns the bytes served; and an
 * OpenAI embedding (openai-node asks for base64 and decodes it) against a fetch that returns them.
 */
async function measureSurface(): Promise<{
  samples: Record<string, { environment: number[]; floor: number[] }>;
  cpu: Record<string, { environment: number[]; floor: number[] }>;
}> {
  const modelId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
  const user = 'What is the weather and the local time in Paris right now? (bench-reply-tools)';
  const request = {
    modelId,
    messages: [{ role: 'user' as const, content: [{ text: user }] }],
    system: [{ text: 'You are a travel helper.' }],
    toolConfig: {
      tools: ['get_weather', 'get_time'].map((name) => ({
        toolSpec: { name, inputSchema: { json: { type: 'object', properties: {} } } },
      })),
    },
  };
  const { modelId: _, ...body } = request;
  const served = await fetch(
    `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(modelId)}/converse-stream`,
    { method: 'POST', body: JSON.stringify(body) },
  );
  const bytes = Buffer.from(await served.arrayBuffer());
  const bedrockFloor = new BedrockRuntimeClient({
    maxAttempts: 1,
    requestHandler: {
      handle: async () => ({
        response: {
          statusCode: 200,
          headers: { 'content-type': 'application/vnd.amazon.eventstream' },
          body: Readable.from([bytes]),
        },
      }),
    } as never,
  });
  const bedrockEnvironment = new BedrockRuntimeClient({ maxAttempts: 1 });
  const converse = (client: BedrockRuntimeClient) => async () => {
    const out = await client.send(new ConverseStreamCommand(request));
    let uses = 0;
    for await (const event of out.stream ?? []) if (event.contentBlockStart?.start?.toolUse) uses++;
    return uses;
  };

  const embeddingBody = await (
    await fetch('https://api.openai.com/v1/embeddings', {
      method: 'POST',
      body: JSON.stringify({ model: 'text-embedding-3-small', input: user, encoding_format: 'base64' }),
    })
  ).text();
  const embedFloor = new OpenAI({
    apiKey: 'sk-understudy-bench',
    maxRetries: 0,
    fetch: async () =>
      new Response(embeddingBody, { status: 200, headers: { 'content-type': 'application/json' } }),
  });
  const embedEnvironment = new OpenAI({ apiKey: 'sk-understudy-bench', maxRetries: 0 });
  const embedding = (client: OpenAI) => async () =>
    (await client.embeddings.create({ model: 'text-embedding-3-small', input: user })).data[0].embedding
      .length;

  const targets = {
    'bedrock tools/eventstream': { environment: converse(bedrockEnvironment), floor: converse(bedrockFloor) },
    'embedding 1536/base64': { environment: embedding(embedEnvironment), floor: embedding(embedFloor) },
  };
  const samples: Record<string, { environment: number[]; floor: number[] }> = {};
  const cpu: Record<string, { environment: number[]; floor: number[] }> = {};
  for (const [id, pair] of Object.entries(targets)) {
    // Both targets give the same answer: two tool calls, a vector of the model's length.
    expect(await pair.environment()).toEqual(await pair.floor());
    await measure(pair, { warmup: plan.prewarm ?? plan.warmup, calls: 0 });
    const m = await measure(pair, plan);
    samples[id] = { environment: m.wall.environment, floor: m.wall.floor };
    cpu[id] = { environment: m.cpu.environment, floor: m.cpu.floor };
  }
  return { samples, cpu };
}

/** Second-turn requests: the model's two parallel tool calls and their results are in the history. */
function midLoopCalls(): Record<string, () => Promise<unknown>> {
  const user = 'What is the weather and the local time in Paris right now? (bench-reply-content)';
  const chat = new OpenAI({ apiKey: 'sk-understudy-bench', maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: 'sk-understudy-bench', maxRetries: 0 });
  const tools = [
    {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
    {
      name: 'get_time',
      parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
    },
  ];
  return {
    'chat loop/json': () =>
      chat.chat.completions.create({
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'You are a travel helper.' },
          { role: 'user', content: user },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_w',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
              {
                id: 'call_t',
                type: 'function',
                function: { name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_w', content: '{"tempC":18}' },
          { role: 'tool', tool_call_id: 'call_t', content: '{"time":"09:30"}' },
        ],
        tools: tools.map((t) => ({ type: 'function' as const, function: t })),
      }),
    'anthropic loop/json': () =>
      anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        system: 'You are a travel helper.',
        tools: tools.map((t) => ({ name: t.name, input_schema: t.parameters as { type: 'object' } })),
        messages: [
          { role: 'user', content: user },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_w', name: 'get_weather', input: { city: 'Paris' } },
              { type: 'tool_use', id: 'toolu_t', name: 'get_time', input: { tz: 'Europe/Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_w', content: '{"tempC":18}' },
              { type: 'tool_result', tool_use_id: 'toolu_t', content: '{"time":"09:30"}' },
            ],
          },
        ],
      }),
  };
}
