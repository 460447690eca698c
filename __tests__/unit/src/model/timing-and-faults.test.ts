/** @jest-environment ./environment/jest/index.ts */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { createClock, isFakeTimers } from '../../../../src/clock';

const ask = (content: string, options: ConstructorParameters<typeof OpenAI>[0] = {}) =>
  new OpenAI({ maxRetries: 0, ...options }).chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content }],
  });

afterEach(() => {
  jest.useRealTimers();
});

describe('latency on the injectable clock', () => {
  it('with Jest fake timers, a reply waits for the timers to advance, never for the wall clock', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    expect(isFakeTimers()).toBe(true);
    understudy.model.use([
      { match: { userMessage: 'slow' }, latency: 30_000, response: { content: 'finally' } },
    ]);
    const start = Date.now();
    let settled = false;
    const pending = ask('slow', { timeout: 120_000 }).then((c) => {
      settled = true;
      return c;
    });
    await jest.advanceTimersByTimeAsync(29_999);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    const completion = await pending;
    expect(completion.choices[0].message.content).toBe('finally');
    expect(Date.now() - start).toBe(30_000);
  });

  it('an SDK timeout fires on the same fake clock when the model is slower than the client allows', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    understudy.model.use([
      { match: { userMessage: 'too slow' }, latency: 60_000, response: { content: 'late' } },
    ]);
    const outcome = ask('too slow', { timeout: 5_000 }).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(await outcome).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(understudy.model.calls).toHaveLength(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('chunkDelay paces streamed chunks on the fake clock', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    understudy.model.use([
      { match: { userMessage: 'paced' }, chunkDelay: 1_000, response: { content: 'abcdef', chunkSize: 2 } },
    ]);
    const stream = await new OpenAI().chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'paced' }],
    });
    const arrivals: Array<[string, number]> = [];
    const t0 = Date.now();
    const consumed = (async () => {
      for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta.content;
        if (piece) arrivals.push([piece, Date.now() - t0]);
      }
    })();
    await jest.advanceTimersByTimeAsync(10_000);
    await consumed;
    expect(arrivals).toEqual([
      ['ab', 1_000],
      ['cd', 2_000],
      ['ef', 3_000],
    ]);
  });

  it('with real timers, timeScale compresses delays (0 = no wait at all)', async () => {
    const spy = jest.spyOn(globalThis, 'setTimeout');
    await createClock(0.001).sleep(10_000);
    expect(spy).toHaveBeenLastCalledWith(expect.any(Function), 10);
    spy.mockClear();
    await createClock(0).sleep(10_000);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });
});

describe('a call its caller gives up on', () => {
  const post = (signal: AbortSignal) =>
    fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
      signal,
    });

  it('an already aborted fetch is rejected with an AbortError before the model sees it', async () => {
    understudy.model.use([{ match: { userMessage: 'hello' }, response: { content: 'hi' } }]);
    const controller = new AbortController();
    controller.abort();
    const outcome = await post(controller.signal).catch((e: unknown) => e);
    expect((outcome as Error).name).toBe('AbortError');
    expect(understudy.model.calls).toHaveLength(0);
  });

  it('a fetch aborted while its call is served is rejected with an AbortError, though the model answered at once', async () => {
    understudy.model.use([{ match: { userMessage: 'hello' }, response: { content: 'hi' } }]);
    const controller = new AbortController();
    const pending = post(controller.signal);
    controller.abort();
    const outcome = await pending.catch((e: unknown) => e);
    expect((outcome as Error).name).toBe('AbortError');
    expect(understudy.model.calls).toHaveLength(1);
  });

  it('the same fetch not aborted gets the answer', async () => {
    understudy.model.use([{ match: { userMessage: 'hello' }, response: { content: 'hi' } }]);
    const response = await post(new AbortController().signal);
    expect(
      ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message
        .content,
    ).toBe('hi');
  });
});

describe('stream faults', () => {
  it('a malformed chunk makes the SDK stream throw a parse error', async () => {
    understudy.model.use([
      { match: { userMessage: 'garbled' }, response: { content: 'abcdef', chunkSize: 2, malformed: 2 } },
    ]);
    const run = await understudy.run(async () => {
      const stream = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        messages: [{ role: 'user', content: 'garbled' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    });
    expect(run.terminalState).toBe('errored');
    expect(String(run.error)).toMatch(/JSON|Unexpected|Could not parse/i);
  });

  it('a malformed plain reply is truncated JSON', async () => {
    understudy.model.use([
      { match: { userMessage: 'broken body' }, response: { content: 'x', malformed: true } },
    ]);
    const error = await ask('broken body').catch((e: unknown) => e);
    expect(String(error)).toMatch(/JSON/);
  });
});

describe('seeded random faults', () => {
  async function faultsOver(n: number): Promise<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < n; i++) {
      const outcome = await ask('flaky').then(
        () => 'ok',
        (e: unknown) =>
          e instanceof OpenAI.RateLimitError
            ? '429'
            : e instanceof OpenAI.APIConnectionError
              ? 'drop'
              : String(e),
      );
      seen.push(outcome);
    }
    return seen;
  }

  it('the same seed replays the same faults in the same order; another seed differs', async () => {
    understudy.model.use([{ match: { userMessage: 'flaky' }, response: { content: 'fine' } }]);
    understudy.model.chaos({ rateLimitRate: 0.3, dropRate: 0.2, seed: 1234 });
    const first = await faultsOver(24);
    understudy.model.reset();
    understudy.model.use([{ match: { userMessage: 'flaky' }, response: { content: 'fine' } }]);
    understudy.model.chaos({ rateLimitRate: 0.3, dropRate: 0.2, seed: 1234 });
    const second = await faultsOver(24);
    expect(second).toEqual(first);
    expect(first).toEqual(expect.arrayContaining(['ok', '429', 'drop']));
    understudy.model.chaos({ rateLimitRate: 0.3, dropRate: 0.2, seed: 99 });
    expect(await faultsOver(24)).not.toEqual(first);
    expect(understudy.model.calls.filter((c) => c.fault).length).toBeGreaterThan(0);
  });

  it('fixture-level chaos: the SDK retries past seeded 429s and still gets the answer', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'retry me' },
        chaos: { rateLimitRate: 0.6, seed: 7 },
        response: { content: 'got through' },
      },
    ]);
    const completion = await new OpenAI({ maxRetries: 10 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'retry me' }],
    });
    expect(completion.choices[0].message.content).toBe('got through');
    const statuses = understudy.model.calls.map((c) => c.error?.status ?? 200);
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.slice(0, -1).every((s) => s === 429)).toBe(true);
  });

  it('a script can fail twice then answer (sequenceIndex under the hood)', async () => {
    understudy.model.use(
      script()
        .user('twice')
        .fails({ status: 503, message: 'unavailable' })
        .fails({ status: 429, message: 'slow down' })
        .replies('third time lucky'),
    );
    const c = await new OpenAI({ maxRetries: 2 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'twice' }],
    });
    expect(c.choices[0].message.content).toBe('third time lucky');
    expect(understudy.model.calls.map((x) => x.error?.status ?? 200)).toEqual([503, 429, 200]);
  });
});
