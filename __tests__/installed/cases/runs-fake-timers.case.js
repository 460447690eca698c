// Runs under Jest's modern fake timers: the openai stream helpers start their request from a
// setTimeout(0), which the fake clock runs from the test's jest.runAllTimersAsync().
const { afterEach, expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy, script } = require('jest-understudy');

afterEach(() => {
  jest.useRealTimers();
});

const tools = [
  {
    type: 'function',
    function: { name: 'delete_everything', parameters: { type: 'object', properties: {} } },
  },
];

async function streamingAgent(text) {
  const client = new OpenAI({ maxRetries: 0 });
  const messages = [{ role: 'user', content: text }];
  for (;;) {
    const completion = await client.chat.completions
      .stream({ model: 'gpt-4o-mini', messages, tools })
      .finalChatCompletion();
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: '{"deleted":true}' });
  }
}

const cleanup = (text) => script().user(text).callsTool('delete_everything', {}).replies(`${text}: done`);

it('attributes a streamed run advanced with runAllTimersAsync', async () => {
  understudy.model.use(cleanup('clean up'));
  jest.useFakeTimers({ doNotFake: ['queueMicrotask'] });
  const pending = understudy.run(() => streamingAgent('clean up'));
  await jest.runAllTimersAsync();
  const run = await pending;
  expect(understudy.model.calls).toHaveLength(2);
  expect(run.modelCalls).toEqual(understudy.model.calls);
  expect(run.toolsCalled).toEqual(['delete_everything']);
  expect(run).toHaveTerminalState('succeeded');
  expect(run).toHaveFinalMessage('clean up: done');
});

it('attributes a streamed run with latency advanced with advanceTimersByTimeAsync', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'slow', turnIndex: 0 },
      response: { toolCalls: [{ name: 'delete_everything', arguments: {} }], latency: 1000 },
    },
    { match: { userMessage: 'slow', turnIndex: 1 }, response: { content: 'slow: done', latency: 1000 } },
  ]);
  jest.useFakeTimers({ doNotFake: ['queueMicrotask'] });
  let run;
  understudy
    .run(() => streamingAgent('slow'))
    .then((r) => {
      run = r;
    });
  for (let i = 0; i < 10 && run === undefined; i++) await jest.advanceTimersByTimeAsync(500);
  expect(understudy.model.calls).toHaveLength(2);
  expect(run.modelCalls).toEqual(understudy.model.calls);
  expect(run.toolsCalled).toEqual(['delete_everything']);
});

it('no false green: not.toHaveCalledTool fails when the streamed agent called the tool', async () => {
  understudy.model.use(cleanup('clean up'));
  jest.useFakeTimers({ doNotFake: ['queueMicrotask'] });
  const pending = understudy.run(() => streamingAgent('clean up'));
  await jest.runAllTimersAsync();
  const run = await pending;
  expect(run).not.toHaveCalledTool('delete_everything');
});

it('keeps two concurrent streamed runs apart under fake timers', async () => {
  understudy.model.use(cleanup('first job'));
  understudy.model.use(cleanup('second job'));
  jest.useFakeTimers({ doNotFake: ['queueMicrotask'] });
  const pending = Promise.all([
    understudy.run(() => streamingAgent('first job')),
    understudy.run(() => streamingAgent('second job')),
  ]);
  await jest.runAllTimersAsync();
  const [first, second] = await pending;
  expect(understudy.model.calls).toHaveLength(4);
  const texts = (run) => run.modelCalls.map((c) => c.conversation.messages[0].text);
  expect(texts(first)).toEqual(['first job', 'first job']);
  expect(texts(second)).toEqual(['second job', 'second job']);
  expect(first).toHaveFinalMessage('first job: done');
  expect(second).toHaveFinalMessage('second job: done');
});

/** A promise the test resolves: runs that wait on it stay active meanwhile. */
function gate() {
  let release;
  const closed = new Promise((resolve) => {
    release = resolve;
  });
  return { closed, release: () => release('released') };
}

/** A call the test itself makes, outside every run's async context. */
const askFromTheTest = (content) =>
  new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content }],
  });

it('a call made outside the only active run belongs to it', async () => {
  understudy.model.use(script().user('from the test').replies('answered'));
  const { closed, release } = gate();
  const pending = understudy.run(() => closed);
  await askFromTheTest('from the test');
  release();
  const run = await pending;
  expect(run.modelCalls).toHaveLength(1);
  expect(run).toHaveFinalMessage('answered');
});

it('a call outside every run while two runs are active fails the test', async () => {
  understudy.model.use(script().user('whose call').replies('nobody knows'));
  const { closed, release } = gate();
  const pending = Promise.all([understudy.run(() => closed), understudy.run(() => closed)]);
  await askFromTheTest('whose call');
  release();
  const runs = await pending;
  expect(runs.map((r) => r.modelCalls.length)).toEqual([0, 0]);
});
