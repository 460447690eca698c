// Under vi.useFakeTimers(): the openai stream helpers start their request from a setTimeout(0),
// which the fake clock runs from the test's vi.runAllTimersAsync(); every streamed call is still
// credited to the run that made it.

import { script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { afterEach, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.useRealTimers();
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
  vi.useFakeTimers();
  const pending = understudy.run(() => streamingAgent('clean up'));
  await vi.runAllTimersAsync();
  const run = await pending;
  expect(understudy.model.calls).toHaveLength(2);
  expect(run.modelCalls).toEqual(understudy.model.calls);
  expect(run.toolsCalled).toEqual(['delete_everything']);
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
  vi.useFakeTimers();
  let run;
  understudy
    .run(() => streamingAgent('slow'))
    .then((r) => {
      run = r;
    });
  for (let i = 0; i < 10 && run === undefined; i++) await vi.advanceTimersByTimeAsync(500);
  expect(understudy.model.calls).toHaveLength(2);
  expect(run.modelCalls).toEqual(understudy.model.calls);
});

it('no false green: not.toHaveCalledTool fails when the streamed agent called the tool', async () => {
  understudy.model.use(cleanup('clean up'));
  vi.useFakeTimers();
  const pending = understudy.run(() => streamingAgent('clean up'));
  await vi.runAllTimersAsync();
  const run = await pending;
  expect(run).not.toHaveCalledTool('delete_everything');
});

it('keeps two concurrent streamed runs apart under fake timers', async () => {
  understudy.model.use(cleanup('first job'));
  understudy.model.use(cleanup('second job'));
  vi.useFakeTimers();
  const pending = Promise.all([
    understudy.run(() => streamingAgent('first job')),
    understudy.run(() => streamingAgent('second job')),
  ]);
  await vi.runAllTimersAsync();
  const [first, second] = await pending;
  expect(understudy.model.calls).toHaveLength(4);
  const texts = (run) => run.modelCalls.map((c) => c.conversation.messages[0].text);
  expect(texts(first)).toEqual(['first job', 'first job']);
  expect(texts(second)).toEqual(['second job', 'second job']);
});
