/**
 * Serve mode: the file's model and world on a loopback port for agents in other processes,
 * their calls credited to the run that started them.
 *
 * @understudy-world ../../../examples/python-agent/orders.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAgentHarness, understudy } from 'jest-understudy';
import { runChild } from '../../../examples/support/child';

const CHILD = join(__dirname, 'child-agent.cjs');

function ask(question: string, env: Record<string, string>) {
  return runChild(process.execPath, [CHILD, 'ask', question], { env });
}

function answers(...pairs: Array<[string, string]>) {
  understudy.model.use(
    pairs.map(([userMessage, content]) => ({ match: { userMessage }, response: { content } })),
  );
}

describe('understudy.serve()', () => {
  it('listens on an ephemeral loopback port and hands out the URLs and variables the SDKs read', async () => {
    const served = await understudy.serve();
    expect(await understudy.serve()).toBe(served);
    const { base } = served.urls;
    // Read in a test (outside its runs), the URLs name the test: a call that arrives after it ended is told apart.
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/run\/t\d+$/);
    expect(served.urls).toMatchObject({
      openai: `${base}/openai/v1`,
      anthropic: `${base}/anthropic`,
      gemini: `${base}/gemini`,
      ollama: `${base}/ollama`,
      world: { orders: `${base}/world/orders` },
      mcp: { orders: `${base}/mcp/orders` },
    });
    expect(served.env).toEqual({
      OPENAI_BASE_URL: `${base}/openai/v1`,
      OPENAI_API_KEY: expect.any(String),
      ANTHROPIC_BASE_URL: `${base}/anthropic`,
      ANTHROPIC_API_KEY: expect.any(String),
      GOOGLE_GEMINI_BASE_URL: `${base}/gemini`,
      GEMINI_API_KEY: expect.any(String),
      GOOGLE_API_KEY: expect.any(String),
      OLLAMA_HOST: `${base}/ollama`,
      UNDERSTUDY_SERVE_URL: base,
    });
    // Read inside a run, every URL names the run.
    const inside = await understudy.run(() => served.env);
    expect(inside.output?.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run\/r\d+\/openai\/v1$/);
    expect(inside.output?.UNDERSTUDY_SERVE_URL).toBe(
      inside.output?.OPENAI_BASE_URL.replace('/openai/v1', ''),
    );
  });

  it("credits a child process's SDK call to the run that started it", async () => {
    const served = await understudy.serve();
    answers(['where is my order?', 'It ships tomorrow.']);

    const run = await understudy.run(() => ask('where is my order?', served.env));

    expect(run.output).toEqual({ code: 0, stdout: 'It ships tomorrow.\n', stderr: '' });
    expect(run).toHaveFinalMessage('It ships tomorrow.');
    expect(run.modelCalls).toHaveLength(1);
    expect(run.modelCalls[0].url).toBe('https://api.openai.com/v1/chat/completions');
  });

  it('tells concurrent runs apart by the token in their URLs', async () => {
    const served = await understudy.serve();
    answers(['first question', 'first answer'], ['second question', 'second answer']);

    const [a, b] = await Promise.all([
      understudy.run(() => ask('first question', served.env)),
      understudy.run(() => ask('second question', served.env)),
    ]);

    expect(a.modelCalls.map((c) => c.response?.content)).toEqual(['first answer']);
    expect(b.modelCalls.map((c) => c.response?.content)).toEqual(['second answer']);
  });

  it("credits a harness run's child to that run, two harness runs at once", async () => {
    const served = await understudy.serve();
    const harness = createAgentHarness({
      agent: (question: string) => ask(question, served.env),
      fixtures: [
        { match: { userMessage: 'harness one' }, response: { content: 'answer one' } },
        { match: { userMessage: 'harness two' }, response: { content: 'answer two' } },
      ],
    });

    const [one, two] = await Promise.all([harness.run('harness one'), harness.run('harness two')]);

    expect(one).toHaveFinalMessage('answer one');
    expect(two).toHaveFinalMessage('answer two');
    expect([one.modelCalls.length, two.modelCalls.length]).toEqual([1, 1]);
  });

  it("serves the world's HTTP routes, tool calls and MCP endpoint, all on the one world", async () => {
    const served = await understudy.serve();

    const run = await understudy.run(async () => {
      const order = await (await fetch(`${served.urls.world.orders}/orders/A-1001`)).json();
      const refund = await fetch(`${served.urls.base}/tools/orders/orders.refund`, {
        method: 'POST',
        body: JSON.stringify({ input: { id: 'A-1001', amount: 89 }, idempotencyKey: 'refund-1' }),
      });
      const client = new Client({ name: 'serve-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.urls.mcp.orders)));
      const tools = (await client.listTools()).tools.map((t) => t.name);
      const again = await client.callTool({ name: 'refund_order', arguments: { id: 'A-1001', amount: 89 } });
      await client.close();
      return { order, refund: [refund.status, await refund.json()], tools, again: again.isError };
    });

    expect(run.output).toEqual({
      order: { id: 'A-1001', item: 'trail shoes', paid: 89, status: 'delivered' },
      refund: [200, { output: { id: 'A-1001', amount: 89 } }],
      tools: ['get_order', 'refund_order', 'send_email'],
      again: true, // refunded once already: CONFLICT
    });
    expect(
      understudy.world.operations.map((op) => `${op.transport} ${op.operationId} ${op.outcome.kind}`),
    ).toEqual(['http orders.get ok', 'cli orders.refund ok', 'mcp orders.refund error']);
    expect(understudy.world.operations[1].idempotencyKey).toBe('refund-1');
    expect(run.operations).toHaveLength(3);
  });

  it('close() stops the port, and the next serve() starts another', async () => {
    const served = await understudy.serve();
    const { base } = served.urls;
    await served.close();
    // From another process: in this one the network policy refuses (and fails the test for) a
    // request to a port no server of the process listens on.
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        `require('node:net').connect(${new URL(base).port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.log(e.code); process.exit(3); });`,
      ],
      { timeout: 30_000 },
    );
    expect([probe.status, String(probe.stdout).trim()]).toEqual([3, 'ECONNREFUSED']);
    const next = await understudy.serve();
    expect(next).not.toBe(served);
    expect(next.urls.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run\/t\d+$/);
    expect(new URL(next.urls.base).port).not.toBe(new URL(base).port);
  });
});
