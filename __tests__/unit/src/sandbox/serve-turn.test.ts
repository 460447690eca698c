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
import type { SocketServices, TurnOutcome, UpstreamRelay } from '../../../../src/sockets/protocol';
import { UnsendableTurn, UpstreamClosed } from '../../../../src/sockets/upstream-link';

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
    // A span per response and per tool call, as on HTTP.
    expect(run.trace.map((s) => s.name)).toEqual([
      'invoke_agent run 0',
      'chat gpt-realtime',
      'chat gpt-realtime',
      'execute_tool lookup',
    ]);
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

  it('a turn of a connection with no upstream that would go to the provider (record, live) is refused, naming replay as the way', async () => {
    understudy.model.use(script().user('hi').replies('hello'));
    const socket = services();
    const run = await understudy.run(() => socket.answer(conversation(user('hi')), turn()), {
      mode: 'live',
    } as never);
    expect(run.output).toMatchObject({ kind: 'error' });
    const [failure, ...more] = failures();
    expect(more).toEqual([]);
    expect(failure.code).toBe('RECORD_UNSUPPORTED');
    expect(failure.message).toContain('replay mode');
  });

  describe('in record and live modes, a connection with an upstream', () => {
    const relayed = (
      relay: Partial<UpstreamRelay>,
      authorization = 'Bearer sk-live-relay-0123456789abcdef',
    ) => {
      const turns: unknown[] = [];
      const socket = getRuntime().requests.socketServices({
        protocol: 'openai.realtime',
        provider: 'openai',
        url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
        path: '/realtime',
        upstream: {
          headers: new Headers({ authorization }),
          relay: () => ({
            keys: [],
            close() {},
            turn: async (request) => {
              turns.push(request);
              return {
                ok: true,
                complete: true,
                reply: {
                  content: null,
                  toolCalls: [{ id: 'call_up1', name: 'lookup', arguments: '{"id":7}' }],
                  finishReason: 'tool_calls',
                  usage: {
                    inputTokens: 5,
                    outputTokens: 2,
                    totalTokens: 7,
                    cachedInputTokens: 0,
                    reasoningTokens: 0,
                  },
                  model: 'gpt-realtime',
                },
              };
            },
            ...relay,
          }),
        },
      });
      return { socket, turns };
    };

    it("the provider's reply over the relay is served, logged as recorded, and the run has its call", async () => {
      const { socket, turns } = relayed({});
      const run = await understudy.run(
        async () => reply(await socket.answer(conversation(user('find order 7')), turn({ input: [] }))).reply,
        { mode: 'live' } as never,
      );
      expect(turns).toEqual([{ input: [] }]);
      expect(run.output).toMatchObject({ toolCalls: [{ id: 'call_up1', name: 'lookup' }] });
      expect(run.modelCalls).toHaveLength(1);
      expect(run.modelCalls[0]).toMatchObject({ protocol: 'openai.realtime', recorded: true });
      expect(run).toHaveRequestedTool('lookup', { id: 7 });
      expect(failures()).toEqual([]);
    });

    it('a client without a real key is refused before anything goes upstream, naming the variable', async () => {
      // Replay's placeholder, as an SDK sends it when the variable is not set.
      const { socket, turns } = relayed({}, `Bearer ${process.env.OPENAI_API_KEY}`);
      const run = await understudy.run(() => socket.answer(conversation(user('hi')), turn()), {
        mode: 'live',
      } as never);
      expect(run.output).toMatchObject({ kind: 'error', error: { status: 401 } });
      expect(turns).toEqual([]);
      const [failure] = failures();
      expect(failure.code).toBe('RECORD_KEY_MISSING');
      expect(failure.message).toContain('OPENAI_API_KEY');
    });

    it("a provider socket that closes fails the test as the provider unreachable, naming the close; a turn it cuts drops the client's", async () => {
      const { socket } = relayed({
        turn: async () => {
          throw new UpstreamClosed(1006, '');
        },
      });
      await understudy.run(() => socket.answer(conversation(user('hi')), turn()), { mode: 'live' } as never);
      const [failure] = failures();
      expect(failure.code).toBe('RECORD_UNAVAILABLE');
      expect(failure.message).toContain("the provider's socket closed (1006)");
      const cut = relayed({
        turn: async () => ({
          ok: true,
          complete: false,
          reply: {
            content: 'Order 7',
            toolCalls: [],
            finishReason: 'stop',
            usage: {
              inputTokens: 0,
              outputTokens: 0,
              totalTokens: 0,
              cachedInputTokens: 0,
              reasoningTokens: 0,
            },
            model: 'gpt-realtime',
          },
        }),
      });
      const run = await understudy.run(() => cut.socket.answer(conversation(user('hi')), turn()), {
        mode: 'live',
      } as never);
      expect(run.output).toMatchObject({ kind: 'drop' });
      // Live mode keeps the cut as evidence: what the provider sent before it ended.
      expect(run.modelCalls[0]).toMatchObject({
        cut: { reason: 'disconnected' },
        response: { content: 'Order 7' },
      });
      expect(failures()).toEqual([]);
    });

    it('record-missing hears a recorded spoken turn by its audio from the cassette: only other audio goes to the provider', async () => {
      understudy.model.use([
        {
          match: { userMessage: 'Where is order 7?' },
          response: { content: 'It has shipped.' },
          metadata: { heard: 'sha256:recorded' },
        },
      ]);
      const heard: string[] = [];
      const { socket } = relayed({
        hear: async (speech) => {
          heard.push(speech.digest);
          return 'Where is order 9?';
        },
      });
      const speech = (digest: string) => ({ chunks: ['AAAA'], digest, format: 'audio/pcm' });
      const run = await understudy.run(
        async () => [
          socket.transcribe?.(speech('sha256:recorded'), conversation()),
          await socket.transcribe?.(speech('sha256:other'), conversation()),
        ],
        { mode: 'record-missing' } as never,
      );
      expect(run.output).toEqual([undefined, 'Where is order 9?']);
      expect(heard).toEqual(['sha256:other']);
      expect(failures()).toEqual([]);
    });

    it('a spoken turn from a client without a real key is refused before its audio goes upstream, naming the variable', async () => {
      const heard: string[] = [];
      const { socket } = relayed(
        {
          hear: async (speech) => {
            heard.push(speech.digest);
            return 'Where is order 9?';
          },
        },
        `Bearer ${process.env.OPENAI_API_KEY}`,
      );
      const run = await understudy.run(
        () =>
          socket.transcribe?.({ chunks: ['AAAA'], digest: 'sha256:a', format: 'audio/pcm' }, conversation()),
        { mode: 'live' } as never,
      );
      expect(run.output).toBeNull();
      expect(heard).toEqual([]);
      const [failure, ...more] = failures();
      expect(more).toEqual([]);
      expect(failure.code).toBe('RECORD_KEY_MISSING');
      expect(failure.message).toContain('OPENAI_API_KEY');
      expect(failure.message).toContain('spoken openai.realtime turns of wss://api.openai.com/v1/realtime');
    });

    it('a turn the relay cannot send fails the test with its reason', async () => {
      const { socket } = relayed({
        turn: async () => {
          throw new UnsendableTurn('spoken input is not sent to the provider');
        },
      });
      const run = await understudy.run(() => socket.answer(conversation(user('hi')), turn()), {
        mode: 'live',
      } as never);
      expect(run.output).toMatchObject({ kind: 'error' });
      const [failure] = failures();
      expect(failure.code).toBe('RECORD_UNSUPPORTED');
      expect(failure.message).toContain('spoken input');
    });
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
