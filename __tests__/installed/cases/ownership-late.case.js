/**
 * Calls made after their run ended, in process: a timer or background work the agent left behind
 * makes a model call or a tool call once `understudy.run` has returned. Each fails the test that
 * made the run while it runs, else the file, never the test running when the call arrives; the
 * call is refused (it belongs to no run). Real SDK clients: openai, @anthropic-ai/sdk.
 * @understudy-world ./ownership.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const Anthropic = require('@anthropic-ai/sdk');
const { GoogleGenAI } = require('@google/genai');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { mockTool, script, understudy } = require('jest-understudy');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const ask = (client, content, options = {}) =>
  client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...options });

/** An agent that answers, then leaves a follow-up model call on a timer (and swallows its error). */
function leavesAModelCall(client, after, text) {
  return async () => {
    const answer = (await ask(client, 'hello')).choices[0].message.content;
    setTimeout(() => ask(client, text).catch(() => undefined), after);
    return answer;
  };
}

const hello = script().user('hello').replies('hi there');
const follows = script().user('follow-up').replies('more');

it('a model call a timer makes after its run ended, while the test still runs', async () => {
  understudy.model.use(hello).use(follows);
  const client = new OpenAI({ maxRetries: 0 });
  const run = await understudy.run(leavesAModelCall(client, 20, 'follow-up'));
  await sleep(200);
  // The late call is not the run's: the run shows what happened while it ran.
  expect(run.modelCalls).toHaveLength(1);
  expect(run).toHaveFinalMessage('hi there');
});

it('a streamed Anthropic call a timer makes after its run ended', async () => {
  understudy.model.use(hello).use(follows);
  const client = new Anthropic({ maxRetries: 0 });
  let late;
  const run = await understudy.run(async () => {
    const first = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hello' }],
    });
    setTimeout(() => {
      late = client.messages
        .stream({
          model: 'claude-sonnet-4-5',
          max_tokens: 100,
          messages: [{ role: 'user', content: 'follow-up' }],
        })
        .finalMessage()
        .then(
          () => 'answered',
          (error) => error.status,
        );
    }, 20);
    return first.content[0].text;
  });
  await sleep(200);
  expect(run.output).toBe('hi there');
  // The agent's late call got an error, not an answer: it belongs to no run.
  expect(await late).toBe(410);
});

it('a mockTool call a timer makes after its run ended', async () => {
  const binding = understudy.world.bind({ actorId: 'agent' });
  const issue = mockTool(binding, {
    mode: 'async',
    operation: { packageId: 'refunds', operationId: 'refunds.issue' },
    input: (orderId) => ({ orderId }),
  });
  let late;
  await understudy.run(async () => {
    await issue('A-1');
    setTimeout(() => {
      late = issue('A-2').then(
        () => 'issued',
        (error) => error.code,
      );
    }, 20);
  });
  await sleep(200);
  expect(await late).toBe('RUN_ENDED');
  // Refused before it ran: the world never issued the second refund.
  expect(Object.values(understudy.world.state.refunds.refunds).map((r) => r.orderId)).toEqual(['A-1']);
});

it('an HTTP tool call a timer makes after its run ended', async () => {
  let late;
  await understudy.run(async () => {
    await fetch('https://refunds.example.test/api/refunds', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: 'B-1' }),
    });
    setTimeout(() => {
      late = fetch('https://refunds.example.test/api/refunds', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ orderId: 'B-2' }),
      }).then((r) => r.status);
    }, 20);
  });
  await sleep(200);
  expect(await late).toBe(410);
  expect(Object.values(understudy.world.state.refunds.refunds).map((r) => r.orderId)).toEqual(['B-1']);
});

it('a streamed Gemini call a timer makes after its run ended', async () => {
  understudy.model.use(hello).use(follows);
  const ai = new GoogleGenAI({ apiKey: 'placeholder' });
  let late;
  const run = await understudy.run(async () => {
    const first = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hello' });
    setTimeout(() => {
      late = (async () => {
        let text = '';
        for await (const chunk of await ai.models.generateContentStream({
          model: 'gemini-2.5-flash',
          contents: 'follow-up',
        }))
          text += chunk.text ?? '';
        return text;
      })().then(
        (text) => `answered ${text}`,
        (error) => error.status,
      );
    }, 20);
    return first.text;
  });
  await sleep(200);
  expect(run.output).toBe('hi there');
  expect(await late).toBe(410);
});

it('an embedding request a timer makes after its run ended', async () => {
  const client = new OpenAI({ maxRetries: 0 });
  let late;
  await understudy.run(async () => {
    await client.embeddings.create({ model: 'text-embedding-3-small', input: 'refund policy' });
    setTimeout(() => {
      late = client.embeddings.create({ model: 'text-embedding-3-small', input: 'late' }).then(
        () => 'answered',
        (error) => error.status,
      );
    }, 20);
  });
  await sleep(200);
  expect(await late).toBe(410);
  // The test's own log holds only what its run did.
  expect(understudy.model.embeddings).toHaveLength(1);
});

it('an MCP tool call a timer makes after its run ended', async () => {
  const client = new Client({ name: 'refunds-agent', version: '1.0.0' });
  await client.connect(understudy.world.mcpTransport('refunds'));
  let late;
  await understudy.run(async () => {
    await client.callTool({ name: 'issue_refund', arguments: { orderId: 'C-1' } });
    setTimeout(() => {
      late = client.callTool({ name: 'issue_refund', arguments: { orderId: 'C-2' } });
    }, 20);
  });
  await sleep(200);
  expect(await late).toMatchObject({ isError: true });
  expect(Object.values(understudy.world.state.refunds.refunds).map((r) => r.orderId)).toEqual(['C-1']);
  await client.close();
});

it('an agent that waits for its follow-up passes', async () => {
  understudy.model.use(hello).use(follows);
  const client = new OpenAI({ maxRetries: 0 });
  const run = await understudy.run(async () => {
    await ask(client, 'hello');
    await sleep(20);
    return (await ask(client, 'follow-up')).choices[0].message.content;
  });
  await sleep(100);
  expect(run.modelCalls).toHaveLength(2);
  expect(run).toHaveFinalMessage('more');
});

it('test 1: leaves a model call that arrives in the next test', async () => {
  understudy.model.use(hello);
  const client = new OpenAI({ maxRetries: 0 });
  const run = await understudy.run(leavesAModelCall(client, 150, 'hello'));
  expect(run).toHaveFinalMessage('hi there');
});

it('test 2: runs while the call of test 1 arrives, and sees only its own', async () => {
  understudy.model.use(hello);
  const client = new OpenAI({ maxRetries: 0 });
  const run = await understudy.run(async () => {
    const answer = (await ask(client, 'hello')).choices[0].message.content;
    await sleep(400);
    return answer;
  });
  expect(run.modelCalls).toHaveLength(1);
  expect(understudy.model.calls).toHaveLength(1);
  expect(run).toHaveFinalMessage('hi there');
});

it('test 3: leaves a request to a host nothing serves, which arrives in the next test', async () => {
  await understudy.run(() => {
    setTimeout(() => fetch('https://tracker.invalid/collect').catch(() => undefined), 150);
  });
});

it('test 4: runs while the request of test 3 is refused, and is not failed for it', async () => {
  const run = await understudy.run(() => sleep(400));
  expect(run).toHaveTerminalState('succeeded');
});
