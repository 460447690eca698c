/**
 * A crashed run gets no answer, whatever carries its tool call: mockTool (async and sync), the
 * world's HTTP routes and MCP server in process (Streamable HTTP and the in-process transport),
 * the served port (a tool by name, an HTTP route, MCP, and a model request at the crash step) and
 * a scenario's tool fake. Each agent first runs without a crash and gets its answer, so "never
 * answered" is the crash's doing.
 * @understudy-world ./context-crash.world.yaml
 */
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { afterAll, expect, it } = require('./runner-globals.cjs');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { mockTool, script, understudy } = require('jest-understudy');

const OPERATION = { packageId: 'desk', operationId: 'refunds.create' };
const CRASH = { afterOperation: 'desk/refunds.create' };
const refunds = () => Object.keys(understudy.world.state.desk.refunds);
/** A macrotask later: an answer on its way would have arrived by then. */
const later = () => new Promise((resolve) => setTimeout(resolve, 100));

/**
 * Runs `agent` without a crash (it gets its answer), then on a fresh world with the crash after
 * the refund (or `crash`): the refund is made, and the agent's code after the call never runs.
 */
async function crashes(agent, crash = CRASH) {
  const plain = await understudy.run(async () => `answered ${JSON.stringify(await agent())}`);
  expect(plain.output).toMatch(crash === CRASH ? /^answered .*rf-1/ : /^answered .*hello/);
  understudy.world.reset();
  let answered = false;
  const run = await understudy.run(
    async () => {
      await agent();
      answered = true;
    },
    { crash },
  );
  await later();
  expect(run.terminalState).toBe('crashed');
  expect(run.crash).toEqual(
    crash === CRASH
      ? { at: 'after desk/refunds.create (operation #1)', operation: 1 }
      : { at: 'at step 1 (model request 1)', step: 1 },
  );
  expect(answered).toBe(false);
  if (crash === CRASH) expect(refunds()).toEqual(['rf-1']);
}

async function connected(transport) {
  const client = new Client({ name: 'desk-agent', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const callRefund = async (client) => {
  const result = await client.callTool({ name: 'refund', arguments: { orderId: 'A-1' } });
  return result.structuredContent ?? result.content;
};

it('mockTool (async): the call never settles', async () => {
  const refund = mockTool(understudy.world.bind(), { mode: 'async', operation: OPERATION });
  await crashes(() => refund({ orderId: 'A-1' }));
});

it('mockTool (async): a failing call the crashed agent still makes is held too, and surfaces nowhere', async () => {
  const binding = understudy.world.bind();
  const refund = mockTool(binding, { mode: 'async', operation: OPERATION });
  const invalid = mockTool(binding, { mode: 'async', operation: OPERATION, input: () => ({}) });
  let late;
  const run = await understudy.run(
    async () => {
      // Work the agent left behind: it calls after the crash, and would be told INVALID_INPUT.
      late = new Promise((resolve) => setTimeout(() => resolve(invalid().then(String, String)), 0));
      await refund({ orderId: 'A-1' });
    },
    { crash: CRASH },
  );
  expect(run.terminalState).toBe('crashed');
  // `late` takes on the held answer: it never settles.
  expect(await Promise.race([late, later().then(() => 'held')])).toBe('held');
  expect(understudy.world.operations.map((o) => o.outcome.error?.code ?? 'ok')).toEqual([
    'ok',
    'INVALID_INPUT',
  ]);
});

it('mockTool (sync): the call throws the crash instead of answering', async () => {
  const refund = mockTool(understudy.world.bind(), { mode: 'sync', operation: OPERATION });
  await crashes(async () => refund({ orderId: 'A-1' }));
});

it('an HTTP route in process: the answer never completes', async () => {
  await crashes(async () => {
    const response = await fetch('https://desk.example.test/api/refunds', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: 'A-1' }),
    });
    return response.json();
  });
});

it('MCP over Streamable HTTP in process: the tool result never comes', async () => {
  const client = await connected(new StreamableHTTPClientTransport(new URL('https://desk.example.test/mcp')));
  await crashes(() => callRefund(client));
});

it('MCP over the in-process transport: the tool result never comes', async () => {
  const client = await connected(understudy.world.mcpTransport('desk'));
  await crashes(() => callRefund(client));
});

const children = [];
afterAll(() => {
  for (const child of children) child.kill();
});

/** The child agent of ./context-crash-child.cjs, and the lines it prints as they come. */
function childAgent(how, urls) {
  const child = spawn(
    process.execPath,
    [join(__dirname, 'context-crash-child.cjs'), how, urls.base, urls[how === 'http' ? 'world' : 'mcp'].desk],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const lines = [];
  const waiting = new Set();
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data) => {
    rest += data;
    for (let at = rest.indexOf('\n'); at !== -1; at = rest.indexOf('\n')) {
      lines.push(rest.slice(0, at));
      rest = rest.slice(at + 1);
    }
    for (const wake of waiting) wake();
  });
  child.on('exit', () => {
    for (const wake of waiting) wake();
  });
  /** The first line starting with `prefix`; 'none' once the child exits (or `ms` pass) without one. */
  const line = (prefix, ms) =>
    new Promise((resolve) => {
      let timer;
      const wake = () => {
        const found = lines.find((l) => l.startsWith(prefix));
        if (!found && child.exitCode === null && child.signalCode === null) return;
        waiting.delete(wake);
        clearTimeout(timer);
        resolve(found ?? 'none');
      };
      waiting.add(wake);
      if (ms !== undefined)
        timer = setTimeout(() => {
          waiting.delete(wake);
          resolve('none');
        }, ms);
      wake();
    });
  return { line };
}

/** An agent that starts a child (the URLs read inside the run carry its token) and waits for its answer. */
async function servedCrashes(how, crash) {
  const served = await understudy.serve();
  let child;
  await crashes(async () => {
    child = childAgent(how, served.urls);
    const body = await child.line('body ');
    if (body === 'none') throw new Error(`the ${how} child got no answer`);
    return body;
  }, crash);
  // The crashed call's answer started (an HTTP client must not sit waiting on headers) and never ends.
  expect(await child.line('headers ', 20_000)).toBe('headers 200');
  expect(await child.line('body ', 1_000)).toBe('none');
}

it('the served port, a tool by name: the answer stalls', () => servedCrashes('tool'));

it('the served port, an HTTP route: the answer stalls', () => servedCrashes('http'));

it('the served port, MCP: the answer stalls', () => servedCrashes('mcp'));

it('the served port, a model request at the crash step: the answer stalls', () => {
  understudy.model.use(script().user('hi').replies('hello'));
  return servedCrashes('model', { atStep: 1 });
});

it('a tool fake of a scenario: the call never settles', async () => {
  const scenario = understudy.scenario().withToolFake('desk', () => ({
    async refund({ orderId }) {
      return { id: `refund-of-${orderId}` };
    },
  }));
  let answered = false;
  const agent = async ({ fakes }) => {
    const refund = await fakes.desk.refund({ orderId: 'A-1' });
    answered = true;
    return refund;
  };
  const plain = await scenario.executeAgent(agent, { user: 'Refund A-1.' });
  expect(plain.output).toEqual({ id: 'refund-of-A-1' });
  answered = false;
  const run = await scenario.executeAgent(agent, {
    user: 'Refund A-1.',
    crash: { afterOperation: 'desk/refund' },
  });
  await later();
  expect(run.terminalState).toBe('crashed');
  expect(answered).toBe(false);
});
