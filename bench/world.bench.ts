/**
 * Runs inside a Jest sandbox under jest-understudy's environment (started by bench/world.mjs).
 * Times one world tool call against a plain jest.fn returning the same value, in the same run:
 *
 * - direct: a mockTool (sync) callable: input validation, override selection (three rules on
 *   the operation, none matching), the built-in behavior, output validation and evidence;
 *   baseline: `jest.fn(() => value)`.
 * - direct-async: the same through `mode: 'async'`; baseline: `jest.fn(async () => value)`.
 * - http: `await (await fetch(url)).json()` against the world's HTTP route (decoding, the same
 *   engine call, encoding); baseline: the async jest.fn.
 * - mcp: `client.callTool(…)` of `@modelcontextprotocol/sdk`'s Client on the world's MCP server,
 *   in-process (`understudy.world.mcpTransport`) and over Streamable HTTP (SSE answers, through
 *   the environment's fetch); baselines: the same call through mockTool (async), and the floor:
 *   the same Client on the SDK's own `McpServer` over its `InMemoryTransport`, whose tool handler
 *   returns the same value with no world behind it.
 *
 * Each batch resets the world (untimed), then times `n` calls; targets rotate batch by batch
 * so a change in machine load spreads over all of them. Writes the per-call samples (µs, one
 * per batch) as JSON to $UNDERSTUDY_BENCH_OUT. Asserts only that every target returns the same value.
 */
import { writeFileSync } from 'node:fs';
import { expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mockTool, understudy } from 'jest-understudy';
import { z } from 'zod';

const plan = process.env.UNDERSTUDY_BENCH_PLAN
  ? (JSON.parse(process.env.UNDERSTUDY_BENCH_PLAN) as {
      batches: number;
      calls: number;
      httpCalls: number;
      warmup: number;
    })
  : { batches: 40, calls: 200, httpCalls: 25, warmup: 500 };
const URL = 'https://store.bench.test/items/item-1';
const MCP_URL = 'https://store.bench.test/mcp';
const MCP_JSON_URL = 'https://store-json.bench.test/mcp';
const OPERATION = { packageId: 'store', operationId: 'items.get' } as const;

it('times a world tool call against a plain jest.fn', async () => {
  understudy.world.load(`${__dirname}/world.world.yaml`);
  const binding = understudy.world.bind();
  const value = understudy.world.state.store.items['item-1'];

  const direct = mockTool(binding, { mode: 'sync', operation: OPERATION, input: (id: string) => ({ id }) });
  const directAsync = mockTool(binding, {
    mode: 'async',
    operation: OPERATION,
    input: (id: string) => ({ id }),
  });
  const plain = jest.fn((_id: string) => value);
  const plainAsync = jest.fn(async (_id: string) => value);
  const http = async () => (await fetch(URL)).json();

  const mcpClient = async (transport: Parameters<Client['connect']>[0]) => {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools(); // as agents do: the client then checks structuredContent against outputSchema
    return client;
  };
  const inProcess = await mcpClient(understudy.world.mcpTransport('store'));
  const overHttp = await mcpClient(new StreamableHTTPClientTransport(new globalThis.URL(MCP_URL)));
  const overHttpJson = await mcpClient(new StreamableHTTPClientTransport(new globalThis.URL(MCP_JSON_URL)));
  // The floor: the SDK's own server and in-memory transport, a handler returning the same value.
  const floorServer = new McpServer({ name: 'floor', version: '1.0.0' });
  floorServer.registerTool(
    'get_item',
    {
      inputSchema: { id: z.string() },
      outputSchema: {
        id: z.string(),
        name: z.string(),
        price: z.number().int(),
        tags: z.array(z.string()).optional(),
      },
    },
    async () => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await floorServer.connect(serverSide);
  const floor = await mcpClient(clientSide);
  const call = { name: 'get_item', arguments: { id: 'item-1' } };
  const jsonCall = { name: 'get_item_json', arguments: { id: 'item-1' } };
  const structured = async (client: Client) =>
    (await client.callTool(client === overHttpJson ? jsonCall : call)).structuredContent;

  // Same value from every target.
  expect(direct('item-1')).toEqual(value);
  await expect(directAsync('item-1')).resolves.toEqual(value);
  await expect(http()).resolves.toEqual(value);
  for (const client of [inProcess, overHttp, overHttpJson, floor])
    await expect(structured(client)).resolves.toEqual(value);
  expect(understudy.world.operations.map((o) => o.transport)).toEqual([
    'direct',
    'direct',
    'http',
    'mcp',
    'mcp',
    'mcp',
  ]);

  const targets: Record<string, { n: number; run: (n: number) => Promise<void> | void }> = {
    'direct (mockTool sync)': { n: plan.calls, run: (n) => void loop(n, () => direct('item-1')) },
    'jest.fn (sync)': { n: plan.calls, run: (n) => void loop(n, () => plain('item-1')) },
    'direct (mockTool async)': { n: plan.calls, run: (n) => loopAsync(n, () => directAsync('item-1')) },
    'jest.fn (async)': { n: plan.calls, run: (n) => loopAsync(n, () => plainAsync('item-1')) },
    'http (fetch + json)': { n: plan.httpCalls, run: (n) => loopAsync(n, http) },
    'mcp in-process (SDK Client)': {
      n: plan.calls,
      run: (n) => loopAsync(n, () => inProcess.callTool(call)),
    },
    'mcp Streamable HTTP, SSE (SDK Client)': {
      n: plan.httpCalls,
      run: (n) => loopAsync(n, () => overHttp.callTool(call)),
    },
    'mcp Streamable HTTP, JSON (SDK Client)': {
      n: plan.httpCalls,
      run: (n) => loopAsync(n, () => overHttpJson.callTool(jsonCall)),
    },
    'mcp floor (SDK McpServer, in-memory)': {
      n: plan.calls,
      run: (n) => loopAsync(n, () => floor.callTool(call)),
    },
  };
  const names = Object.keys(targets);
  for (const name of names) {
    understudy.world.reset();
    await targets[name].run(plan.warmup);
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let batch = 0; batch < plan.batches; batch++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(batch + k) % names.length];
      const target = targets[name];
      understudy.world.reset();
      plain.mockClear();
      plainAsync.mockClear();
      const start = performance.now();
      await target.run(target.n);
      samples[name].push(((performance.now() - start) * 1000) / target.n);
    }
  }
  await Promise.all([inProcess, overHttp, overHttpJson, floor, floorServer].map((c) => c.close()));
  if (process.env.UNDERSTUDY_BENCH_OUT)
    writeFileSync(process.env.UNDERSTUDY_BENCH_OUT, JSON.stringify({ plan, samples }));
  else console.log(JSON.stringify(summary(samples), null, 2));
});

function loop(n: number, f: () => unknown): void {
  for (let i = 0; i < n; i++) f();
}

async function loopAsync(n: number, f: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i++) await f();
}

function summary(samples: Record<string, number[]>) {
  return Object.fromEntries(
    Object.entries(samples).map(([name, s]) => {
      const sorted = [...s].sort((a, b) => a - b);
      return [name, `${sorted[Math.floor(sorted.length / 2)].toFixed(2)} µs`];
    }),
  );
}
