/**
 * A socket session's model turn (src/sandbox/serve-turn.ts) goes through what an HTTP call goes
 * through: the fixtures, the answer contracts, chaos, the file's call log, the run's evidence,
 * unmatched calls failing the test. The protocols' own tests drive it from their wire.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import type { Conversation } from '../../../../src/conversation';
import { getRuntime } from '../../../../src/sandbox/runtime';
import type { SocketServices, TurnOutcome } from '../../../../src/sockets/protocol';

const services = (): SocketServices =>
  getRuntime().requests.socketServices({
    protocol: 'openai.realtime',
    provider: 'openai',
    url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
    path: '/realtime',
    toolCallIdPrefix: 'call_',
  });

const conversation = (...messages: Conversation['messages']): Conversation => ({
  provider: 'openai',
  protocol: 'openai.realtime',
  model: 'gpt-realtime',
  messages,
  tools: [{ name: 'lookup' }],
  stream: true,
  streamUsage: true,
});
const user = (text: string) => ({ role: 'user' as const, text });
const turn = (request: unknown = { tools: [{ type: 'function', name: 'lookup' }] }) => ({
  signal: new AbortController().signal,
  request,
});
const failures = () => getRuntime().drainFailures();
const reply = (outcome: TurnOutcome) => {
  if (outcome.kind !== 'reply') throw new Error(`expected a reply, got ${JSON.stringify(outcome)}`);
  return outcome;
};

describe('a socket turn', () => {
  it('answers from the fixtures, and the run has its tool call, result and final message', async () => {
    understudy.model.use(
      script().user('find order 7').callsTool('lookup', { id: 7 }).replies('Order 7 shipped.'),
    );
    const socket = services();
    const run = await understudy.run(async () => {
      const first = reply(await socket.answer(conversation(user('find order 7')), turn()));
      const [call] = first.reply.toolCalls;
      expect(call).toMatchObject({ name: 'lookup', arguments: '{"id":7}' });
      expect(call.id).toMatch(/^call_/);
      const second = reply(
        await socket.answer(
          conversation(
            user('find order 7'),
            { role: 'assistant', text: null, toolCalls: [call] },
            { role: 'tool', text: '{"status":"shipped"}', toolCallId: call.id },
          ),
          turn(),
        ),
      );
      return second.reply.content;
    });
    expect(run.output).toBe('Order 7 shipped.');
    expect(run).toHaveCalledTool('lookup', { id: 7 });
    expect(run.toolCalls[0].result).toEqual({ status: 'shipped' });
    expect(run.finalMessage).toBe('Order 7 shipped.');
    expect(run.terminalState).toBe('succeeded');
    expect(run.modelCalls.map((c) => c.protocol)).toEqual(['openai.realtime', 'openai.realtime']);
    expect(failures()).toEqual([]);
  });

  it('a turn no fixture matches answers an error and fails the test, naming the user message', async () => {
    understudy.model.use(script().user('hello').replies('hi'));
    const outcome = await services().answer(conversation(user('something else')), turn());
    expect(outcome).toMatchObject({ kind: 'error', error: { status: 404 } });
    const [failure, ...more] = failures();
    expect(more).toEqual([]);
    expect(failure.code).toBe('MODEL_UNMATCHED');
    expect(failure.message).toContain('something else');
  });

  it('a fixture that calls a tool the session does not offer breaks the offered-tools contract and fails the test', async () => {
    understudy.model.use(script().user('go').callsTool('delete_everything', {}));
    const outcome = await services().answer(conversation(user('go')), turn());
    // As on HTTP, the reply goes out unchanged and the test fails.
    expect(outcome.kind).toBe('reply');
    const [failure] = failures();
    expect(failure.code).toBe('CONTRACT_BREACH');
    expect(failure.message).toContain('delete_everything');
  });

  it("a fixture's error and a seeded fault come back as outcomes, logged as the call's error", async () => {
    understudy.model.use(
      script().user('hi').fails({ status: 429, message: 'slow down', type: 'rate_limit_exceeded' }),
    );
    const outcome = await services().answer(conversation(user('hi')), turn());
    expect(outcome).toMatchObject({ kind: 'error', error: { status: 429, message: 'slow down' } });
    expect(understudy.model.calls.at(-1)?.error?.status).toBe(429);
    understudy.model.reset();
    understudy.model.use([
      { match: { userMessage: 'drop' }, response: { content: 'x' }, chaos: { dropRate: 1 } },
    ]);
    expect((await services().answer(conversation(user('drop')), turn())).kind).toBe('drop');
    expect(failures()).toEqual([]);
  });

  it('a reply the protocol cut short is logged as cut, and is no final message', async () => {
    understudy.model.use(script().user('talk').replies('A long answer that the user interrupts.'));
    const socket = services();
    const run = await understudy.run(async () => {
      const outcome = reply(await socket.answer(conversation(user('talk')), turn()));
      outcome.cut('aborted', { ...outcome.reply, content: 'A long answer' }, { delivered: 3, of: 9 });
    });
    const [call] = run.modelCalls;
    expect(call.cut).toEqual({ reason: 'aborted', delivered: 3, of: 9 });
    expect(call.response?.content).toBe('A long answer');
    expect(call.whole?.content).toBe('A long answer that the user interrupts.');
    expect(run.finalMessage).toBeUndefined();
    expect(run.terminalState).toBe('failed');
    expect(failures()).toEqual([]);
  });

  it('refused fails the test as a refused HTTP request does', () => {
    services().refused({
      status: 400,
      type: 'invalid_request_error',
      param: 'session.voice',
      message: 'bad voice',
    });
    const [failure] = failures();
    expect(failure.code).toBe('CONTRACT_BREACH');
    expect(failure.message).toContain('bad voice');
    expect(failure.message).toContain('openai.realtime');
  });
});
