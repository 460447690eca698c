/**
 * @jest-environment-options {"understudy": {"providers": {"ollama": true}}}
 * @jest-environment ./environment/jest/index.ts
 */

/**
 * Ollama's native API through its own client: the weather loop over `/api/chat`, plain and
 * NDJSON-streamed, `/api/generate`, `/api/embed`, errors on Ollama's wire and a stream that fails.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { type Message, Ollama } from 'ollama';
import {
  ANSWER,
  expectWeatherRun,
  QUESTION,
  runTool,
  TOOLS,
  weatherFixtures,
} from '../../../../support/agents/weather';

const MODEL = 'llama3.2';
const tools = TOOLS.map((t) => ({ type: 'function', function: t }));

async function agent(client: Ollama, stream: boolean): Promise<string> {
  const messages: Message[] = [{ role: 'user', content: QUESTION }];
  for (let turn = 0; turn < 4; turn++) {
    let message: Message;
    if (stream) {
      message = { role: 'assistant', content: '', tool_calls: [] };
      for await (const part of await client.chat({ model: MODEL, messages, tools, stream: true })) {
        message.content += part.message.content;
        message.tool_calls?.push(...(part.message.tool_calls ?? []));
      }
    } else message = (await client.chat({ model: MODEL, messages, tools })).message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls)
      messages.push({
        role: 'tool',
        tool_name: call.function.name,
        content: JSON.stringify(runTool(call.function.name, call.function.arguments)),
      });
  }
  throw new Error('no answer');
}

describe.each([false, true])('/api/chat (stream: %s)', (stream) => {
  it('runs the weather loop: both calls, their results, the answer', async () => {
    understudy.model.use(weatherFixtures({ answer: 5 }));
    const client = new Ollama({ host: 'http://127.0.0.1:11434' });
    const run = await understudy.run(() => agent(client, stream));
    expect(run.output).toBe(ANSWER);
    expectWeatherRun(run);
    expect(understudy.model.calls.map((c) => [c.protocol, c.streamed])).toEqual([
      ['ollama.chat', stream],
      ['ollama.chat', stream],
    ]);
  });
});

it('answers /api/generate, plain and streamed, with the eval counts', async () => {
  understudy.model.use(script().user('Why is the sky blue?').replies('Rayleigh scattering.'));
  const client = new Ollama();
  const plain = await client.generate({ model: MODEL, prompt: 'Why is the sky blue?' });
  expect(plain).toMatchObject({ response: 'Rayleigh scattering.', done: true, done_reason: 'stop' });
  expect(plain.prompt_eval_count).toBeGreaterThan(0);
  let text = '';
  for await (const part of await client.generate({
    model: MODEL,
    prompt: 'Why is the sky blue?',
    stream: true,
  }))
    text += part.response;
  expect(text).toBe('Rayleigh scattering.');
});

it('embeds a string and a list through /api/embed', async () => {
  const client = new Ollama();
  const one = await client.embed({ model: 'nomic-embed-text', input: 'doc' });
  const two = await client.embed({ model: 'nomic-embed-text', input: ['doc', 'other'] });
  expect(one.embeddings).toHaveLength(1);
  expect(two.embeddings).toHaveLength(2);
  expect(two.embeddings[0]).toEqual(one.embeddings[0]);
  expect(understudy.model.embeddings.map((e) => e.protocol)).toEqual(['ollama.embed', 'ollama.embed']);
});

it("answers a fixture's error in Ollama's shape, and a failed stream with its error line", async () => {
  understudy.model.use(script().user('fail').fails({ status: 500, message: 'model crashed' }));
  understudy.model.use([
    {
      match: { userMessage: 'cut' },
      response: {
        content: 'a long answer in pieces',
        chunkSize: 4,
        streamError: { message: 'runner stopped' },
      },
    },
  ]);
  const client = new Ollama();
  await expect(
    client.chat({ model: MODEL, messages: [{ role: 'user', content: 'fail' }] }),
  ).rejects.toMatchObject({
    name: 'ResponseError',
    error: 'model crashed',
    status_code: 500,
  });
  const read = async () => {
    for await (const _ of await client.chat({
      model: MODEL,
      messages: [{ role: 'user', content: 'cut' }],
      stream: true,
    }));
  };
  await expect(read()).rejects.toThrow('runner stopped');
});

describe('a stream the wire cuts short', () => {
  const cutFixture = (shaping: Record<string, unknown>) => [
    {
      match: { userMessage: 'story' },
      response: { content: 'Once upon a time, far away.', chunkSize: 5, ...shaping },
    },
  ];
  const read = async (client: Ollama) => {
    let text = '';
    for await (const part of await client.chat({
      model: MODEL,
      messages: [{ role: 'user', content: 'story' }],
      stream: true,
    }))
      text += part.message.content;
    return text;
  };

  it('truncated: the client sees no done line, and the call keeps only the lines that went out', async () => {
    understudy.model.use(cutFixture({ truncateAfterChunks: 2 }));
    const run = await understudy.run(() => read(new Ollama()), { expectError: true });
    expect(run.error).toEqual(new Error('Did not receive done or success response in stream.'));
    const [call] = understudy.model.calls;
    expect(call.cut).toEqual({ reason: 'truncated', delivered: 2, of: 7 });
    expect(call.response?.content).toBe('Once upon ');
    expect(call.whole?.content).toBe('Once upon a time, far away.');
  });

  it('disconnected: the connection drops mid-stream, and the call keeps what arrived', async () => {
    understudy.model.use(cutFixture({ disconnect: true }));
    const run = await understudy.run(() => read(new Ollama()), { expectError: true });
    expect(run.terminalState).toBe('errored');
    const [call] = understudy.model.calls;
    expect(call.cut).toMatchObject({ reason: 'disconnected', delivered: 4 });
    expect(call.response?.content).toBe('Once upon a time, fa');
  });

  it('malformed: the client skips the broken line and reads on, and the call keeps every other line', async () => {
    understudy.model.use(cutFixture({ malformed: 2 }));
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const run = await understudy.run(() => read(new Ollama()));
    warn.mockRestore();
    // The ollama client warns about a line that is not JSON and goes on: the third piece ("a tim") is lost.
    expect(run.output).toBe('Once upon e, far away.');
    const [call] = understudy.model.calls;
    expect(call.cut).toEqual({ reason: 'malformed', delivered: 6, of: 7 });
    expect(call.response?.content).toBe(run.output);
    expect(call.whole?.content).toBe('Once upon a time, far away.');
  });

  it("chaos: a seeded stream error ends the stream with Ollama's error line", async () => {
    understudy.model.use([{ ...cutFixture({})[0], chaos: { streamErrorRate: 1, seed: 7 } }]);
    const run = await understudy.run(() => read(new Ollama()), { expectError: true });
    expect(run.error).toEqual(
      new Error('The server had an error while processing your request (seeded fault).'),
    );
    const [call] = understudy.model.calls;
    expect(call.fault).toBe('stream_error');
    expect(call.cut?.reason).toBe('stream_error');
  });
});
