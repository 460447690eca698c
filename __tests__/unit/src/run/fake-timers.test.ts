/**
 * Runs under Jest's modern fake timers, through the real SDKs: every protocol, streamed and
 * not, with the clock advanced or (where the SDK needs no timer) not advanced, credits its
 * model calls to the run exactly as with real timers. Callbacks the fake clock runs keep the
 * async context of the code that scheduled them, as real timers do.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { type Run, script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { isFakeTimers } from '../../../../src/clock';

afterEach(() => {
  jest.useRealTimers();
});

const schema = { type: 'object', properties: { id: { type: 'string' } } } as const;
const answer = (id: string) => JSON.stringify({ id, found: true });

type Variant = 'plain' | 'stream' | 'helper';

async function openaiChat(text: string, variant: Variant): Promise<string | null> {
  const client = new OpenAI({ maxRetries: 0 });
  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: schema } }];
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: text }];
  for (;;) {
    const params = { model: 'gpt-4o-mini', messages, tools };
    let message: OpenAI.Chat.ChatCompletionMessage;
    if (variant === 'helper')
      message = (await client.chat.completions.stream(params).finalChatCompletion()).choices[0].message;
    else if (variant === 'stream') {
      let content = '';
      const calls: Array<{ id: string; name: string; args: string }> = [];
      for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
        const delta = chunk.choices[0]?.delta;
        content += delta?.content ?? '';
        for (const c of delta?.tool_calls ?? []) {
          calls[c.index] ??= { id: '', name: '', args: '' };
          calls[c.index].id += c.id ?? '';
          calls[c.index].name += c.function?.name ?? '';
          calls[c.index].args += c.function?.arguments ?? '';
        }
      }
      message = {
        role: 'assistant',
        content: content || null,
        refusal: null,
        ...(calls.length > 0 && {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function' as const,
            function: { name: c.name, arguments: c.args },
          })),
        }),
      };
    } else message = (await client.chat.completions.create(params)).choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: answer(call.id) });
  }
}

async function openaiResponses(text: string, variant: Variant): Promise<string> {
  const client = new OpenAI({ maxRetries: 0 });
  const tools = [{ type: 'function' as const, name: 'lookup', parameters: schema, strict: false }];
  let input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: text }];
  let previous: string | undefined;
  for (;;) {
    const params = { model: 'gpt-4o-mini', input, tools, previous_response_id: previous };
    let response: OpenAI.Responses.Response;
    if (variant === 'helper') response = await client.responses.stream(params).finalResponse();
    else if (variant === 'stream') {
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of await client.responses.create({ ...params, stream: true }))
        if (event.type === 'response.completed') completed = event.response;
      if (!completed) throw new Error('the stream ended without response.completed');
      response = completed;
    } else response = await client.responses.create(params);
    const calls = response.output.filter((o) => o.type === 'function_call');
    if (calls.length === 0)
      return response.output
        .flatMap((o) => (o.type === 'message' ? o.content : []))
        .map((c) => (c.type === 'output_text' ? c.text : ''))
        .join('');
    previous = response.id;
    input = calls.map((c) => ({
      type: 'function_call_output' as const,
      call_id: c.call_id,
      output: answer(c.call_id),
    }));
  }
}

async function anthropic(text: string, variant: Variant): Promise<string> {
  const client = new Anthropic({ maxRetries: 0 });
  const tools = [{ name: 'lookup', input_schema: schema as unknown as Anthropic.Tool.InputSchema }];
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: text }];
  for (;;) {
    const params = { model: 'claude-haiku-4-5', max_tokens: 256, messages, tools };
    let message: Anthropic.Message;
    if (variant === 'helper') message = await client.messages.stream(params).finalMessage();
    else if (variant === 'stream') {
      const content: Anthropic.ContentBlock[] = [];
      const json: string[] = [];
      for await (const event of await client.messages.create({ ...params, stream: true })) {
        if (event.type === 'content_block_start') {
          content[event.index] = { ...event.content_block } as Anthropic.ContentBlock;
          json[event.index] = '';
        } else if (event.type === 'content_block_delta') {
          const block = content[event.index] as { text?: string };
          if (event.delta.type === 'text_delta') block.text = (block.text ?? '') + event.delta.text;
          if (event.delta.type === 'input_json_delta') json[event.index] += event.delta.partial_json;
        }
      }
      content.forEach((block, i) => {
        if (block.type === 'tool_use') block.input = json[i] ? JSON.parse(json[i]) : {};
      });
      message = { content } as Anthropic.Message;
    } else message = await client.messages.create(params);
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    messages.push({
      role: 'user',
      content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: answer(u.id) })),
    });
  }
}

async function gemini(text: string, variant: Variant): Promise<string> {
  const ai = new GoogleGenAI({ apiKey: 'test-key' });
  const config = { tools: [{ functionDeclarations: [{ name: 'lookup', parametersJsonSchema: schema }] }] };
  const contents: any[] = [{ role: 'user', parts: [{ text }] }];
  for (;;) {
    let parts: any[] = [];
    if (variant === 'stream') {
      for await (const chunk of await ai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents,
        config,
      }))
        parts = parts.concat(chunk.candidates?.[0]?.content?.parts ?? []);
    } else {
      const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
      parts = response.candidates?.[0]?.content?.parts ?? [];
    }
    contents.push({ role: 'model', parts });
    const calls = parts.filter((p) => p.functionCall);
    if (calls.length === 0) return parts.map((p) => p.text ?? '').join('');
    contents.push({
      role: 'user',
      parts: calls.map((p) => ({
        functionResponse: { id: p.functionCall.id, name: 'lookup', response: JSON.parse(answer('g')) },
      })),
    });
  }
}

type Agent = (text: string, variant: Variant) => Promise<unknown>;

/** Each protocol's agent and the ways it can call the model; `helper` runs need timers. */
const PROTOCOLS: Array<[string, Agent, Variant[]]> = [
  ['openai.chat', openaiChat, ['plain', 'stream', 'helper']],
  ['openai.responses', openaiResponses, ['plain', 'stream', 'helper']],
  ['anthropic.messages', anthropic, ['plain', 'stream', 'helper']],
  ['gemini.generateContent', gemini, ['plain', 'stream']],
];

/** The openai stream helpers start their request from a setTimeout(0). */
const needsTimers = (protocol: string, variant: Variant) =>
  variant === 'helper' && protocol.startsWith('openai');

function fixturesFor(text: string, latency?: number) {
  const fixtures = script().user(text).callsTool('lookup', { id: 'A-1' }).replies(`${text}: found`).build();
  return latency === undefined
    ? fixtures
    : fixtures.map((f) => ({ ...f, response: { ...f.response, latency } }));
}

/** Advances the fake clock until the run settles (a bounded number of steps). */
async function settle<T>(pending: Promise<T>, advance: () => Promise<unknown>): Promise<T> {
  let settled = false;
  pending.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < 20 && !settled; i++) await advance();
  return pending;
}

function expectCredited(run: Run<unknown, unknown>, protocol: string, text: string): void {
  expect(run).toHaveTerminalState('succeeded');
  expect(run.modelCalls).toHaveLength(2);
  expect(run.modelCalls.map((c) => [c.protocol, c.conversation.messages[0].text])).toEqual([
    [protocol, text],
    [protocol, text],
  ]);
  expect(run.toolsCalled).toEqual(['lookup']);
  expect(run).toHaveFinalMessage(`${text}: found`);
}

const FAKE = { doNotFake: ['queueMicrotask'] as Array<'queueMicrotask'> };

describe.each(PROTOCOLS)('%s under modern fake timers', (protocol, agent, variants) => {
  describe.each(variants)('%s', (variant) => {
    if (!needsTimers(protocol, variant))
      it('credits the calls to the run without advancing the clock', async () => {
        understudy.model.use(fixturesFor('not advanced'));
        jest.useFakeTimers(FAKE);
        const run = await understudy.run(() => agent('not advanced', variant));
        expect(run.modelCalls.every((c, i) => c === understudy.model.calls[i])).toBe(true);
        expectCredited(run, protocol, 'not advanced');
      });

    it('credits the calls to the run with jest.runAllTimersAsync', async () => {
      understudy.model.use(fixturesFor('run all'));
      jest.useFakeTimers(FAKE);
      const run = await settle(
        understudy.run(() => agent('run all', variant)),
        () => jest.runAllTimersAsync(),
      );
      expect(run.modelCalls).toEqual(understudy.model.calls);
      expectCredited(run, protocol, 'run all');
    });

    it('credits the calls to the run with latency and jest.advanceTimersByTimeAsync', async () => {
      understudy.model.use(fixturesFor('advanced', 1000));
      jest.useFakeTimers(FAKE);
      const run = await settle(
        understudy.run(() => agent('advanced', variant)),
        () => jest.advanceTimersByTimeAsync(500),
      );
      expect(run.modelCalls).toEqual(understudy.model.calls);
      expectCredited(run, protocol, 'advanced');
      expect(run.modelCalls.map((c) => c.durationMs)).toEqual([1000, 1000]);
    });
  });
});

it('keeps concurrent runs of every protocol apart under fake timers', async () => {
  const cases = PROTOCOLS.flatMap(([protocol, agent, variants]) =>
    variants.map((variant) => ({ protocol, agent, variant, text: `${protocol} ${variant} job` })),
  );
  for (const c of cases) understudy.model.use(fixturesFor(c.text, 200));
  jest.useFakeTimers(FAKE);
  const runs = await settle(
    Promise.all(cases.map((c) => understudy.run(() => c.agent(c.text, c.variant)))),
    () => jest.advanceTimersByTimeAsync(100),
  );
  expect(understudy.model.calls).toHaveLength(2 * cases.length);
  cases.forEach((c, i) => {
    expectCredited(runs[i], c.protocol, c.text);
  });
});

describe('callbacks the fake clock runs', () => {
  const storage = new AsyncLocalStorage<string>();
  const seen = (schedule: (callback: () => void) => void) =>
    storage.run(
      'scheduler',
      () => new Promise<string | undefined>((resolve) => schedule(() => resolve(storage.getStore()))),
    );

  it.each([
    ['setTimeout', (cb: () => void) => setTimeout(cb, 10)],
    [
      'setInterval',
      (cb: () => void) => {
        const id = setInterval(() => {
          clearInterval(id);
          cb();
        }, 10);
      },
    ],
    ['setImmediate', (cb: () => void) => setImmediate(cb)],
    ['process.nextTick', (cb: () => void) => process.nextTick(cb)],
    ['queueMicrotask', (cb: () => void) => queueMicrotask(cb)],
  ])('%s keeps the async context of the code that scheduled it', async (_, schedule) => {
    jest.useFakeTimers();
    const pending = seen(schedule);
    // The test advances the clock in its own context, where the store is empty.
    expect(storage.getStore()).toBeUndefined();
    jest.advanceTimersByTime(10);
    jest.runAllTicks();
    expect(await pending).toBe('scheduler');
  });

  it('leave the faked globals tagged with their clock, and uninstall restores the real ones', () => {
    const real = { setTimeout, setInterval, setImmediate, nextTick: process.nextTick };
    jest.useFakeTimers(FAKE);
    expect(isFakeTimers()).toBe(true);
    expect((setTimeout as unknown as { clock: { now: number } }).clock.now).toBe(Date.now());
    expect(setTimeout).not.toBe(real.setTimeout);
    jest.useFakeTimers(FAKE);
    expect(isFakeTimers()).toBe(true);
    jest.useRealTimers();
    expect(isFakeTimers()).toBe(false);
    expect({ setTimeout, setInterval, setImmediate, nextTick: process.nextTick }).toEqual(real);
  });
});
