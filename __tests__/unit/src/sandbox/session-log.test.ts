/**
 * A socket session's turns, as the trace gets them (src/sandbox/session-log.ts): opened by the
 * user's input, in the order things happened, the assistant's text as it reached the user (never
 * the fixture's whole text of a cut answer), a late truncation on the turn whose answer it cut, a
 * drop at the end of the turn it broke; and which sessions a test's trace shows (FileSockets).
 */
import { describe, expect, it } from '@jest/globals';
import type { NeutralReply } from '../../../../src/conversation';
import type { ModelCall } from '../../../../src/model/call';
import { cutCall } from '../../../../src/model/delivered';
import { ProviderRouter } from '../../../../src/providers/registry';
import type { FileRequests } from '../../../../src/sandbox/requests';
import { SessionLog } from '../../../../src/sandbox/session-log';
import { FileSockets } from '../../../../src/sandbox/sockets';
import type { TurnOutcome } from '../../../../src/sockets/protocol';

const reply = (content: string | null, toolCalls: NeutralReply['toolCalls'] = []): NeutralReply => ({
  content,
  toolCalls,
  finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, cachedInputTokens: 0, reasoningTokens: 0 },
  model: 'gpt-realtime',
});

let index = 0;
const call = (response: NeutralReply): ModelCall =>
  ({
    index: index++,
    provider: 'openai',
    protocol: 'openai.realtime',
    url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
    request: {},
    conversation: { messages: [], tools: [] },
    response,
    unmatched: false,
    streamed: true,
    startedAt: performance.now(),
    durationMs: 1,
  }) as unknown as ModelCall;

/** A turn answered through the log as a protocol's is: the call logged as the answer starts. */
async function answer(log: SessionLog, made: ModelCall): Promise<TurnOutcome> {
  const outcome = { kind: 'reply', reply: made.response } as TurnOutcome;
  return log.answering(() => {
    log.call(made);
    return Promise.resolve(outcome);
  });
}

const LONG = 'We open at nine and close at six.';

describe('SessionLog', () => {
  it('opens a turn at each user input, and keeps the calls, tool outputs and text in their order', async () => {
    const log = new SessionLog('wss://api.openai.com/v1/realtime?model=gpt-realtime', 'openai.realtime');
    log.note({ kind: 'user', via: 'text', text: 'Where is order 7?' });
    const asks = call(reply(null, [{ id: 'call_1', name: 'lookup_order', arguments: '{"id":7}' }]));
    await answer(log, asks);
    log.note({ kind: 'tool output', callId: 'call_1', output: '{"status":"shipped"}' });
    const says = call(reply('Order 7 has shipped.'));
    await answer(log, says);
    log.note({ kind: 'user', via: 'audio', text: 'Thanks' });
    log.note({ kind: 'user', via: 'audio', text: null });
    const { turns } = log.evidence(0, { closeCode: 1000, closedBy: 'client' });
    expect(turns.map((t) => [t.index, t.user, t.assistant, t.modelCalls])).toEqual([
      [0, { via: 'text', text: 'Where is order 7?' }, 'Order 7 has shipped.', [asks.index, says.index]],
      [1, { via: 'audio', text: 'Thanks' }, undefined, []],
      [2, { via: 'audio', text: null }, undefined, []],
    ]);
    expect(turns[0].toolCalls).toEqual([
      { id: 'call_1', name: 'lookup_order', arguments: '{"id":7}', output: '{"status":"shipped"}', at: 0 },
    ]);
    expect(turns.map((t) => t.faults)).toEqual([undefined, undefined, undefined]);
  });

  it('shows what the user heard of an answer cut after it was logged, never the whole text', async () => {
    const log = new SessionLog('wss://x/v1/realtime?model=m', 'openai.realtime');
    log.note({ kind: 'user', via: 'text', text: 'Tell me about your hours' });
    const long = call(reply(LONG));
    const outcome = await answer(log, long);
    log.note({ kind: 'interrupted', by: 'user', turn: outcome });
    // The user's next turn starts before the client truncates the answer they cut off.
    log.note({ kind: 'user', via: 'audio', text: 'Stop' });
    cutCall(long, { reason: 'aborted', delivered: 3, of: 9 }, reply('We o'));
    log.note({ kind: 'truncated', heardMs: 160, heardChars: 4, ofChars: LONG.length, turn: outcome });
    const { turns } = log.evidence(0, {});
    expect(turns[0]).toMatchObject({
      assistant: 'We o',
      interrupted: { by: 'user', heardMs: 160, heardChars: 4, ofChars: LONG.length },
    });
    expect(turns[0].faults).toBeUndefined();
    expect(turns[1]).toMatchObject({ user: { via: 'audio', text: 'Stop' } });
    expect(turns[1].interrupted).toBeUndefined();
  });

  it('keeps no text of a cut answer none of which reached the user', async () => {
    const log = new SessionLog('wss://x/v1/realtime?model=m', 'openai.realtime');
    log.note({ kind: 'user', via: 'text', text: 'Hi' });
    const cancelled = call(reply(LONG));
    await answer(log, cancelled);
    log.note({ kind: 'interrupted', by: 'client' });
    cutCall(cancelled, { reason: 'aborted', delivered: 0 }, undefined);
    const [turn] = log.evidence(0, {}).turns;
    expect(turn.assistant).toBeUndefined();
    expect(turn.interrupted).toEqual({ by: 'client', heardChars: 0, ofChars: LONG.length });
  });

  it('puts a drop at the end of the turn it broke, after the cut of its answer', async () => {
    const log = new SessionLog('wss://x/v1/realtime?model=m', 'openai.realtime');
    log.note({ kind: 'user', via: 'text', text: 'Where is order 7?' });
    const cut = call(reply('Order 7 has shipped.'));
    await answer(log, cut);
    cutCall(cut, { reason: 'truncated', delivered: 6, of: 13 }, reply('Order 7 '));
    log.closed();
    const session = log.evidence(0, { closeCode: 1006, closedBy: 'server', dropped: true });
    expect(session).toMatchObject({ closeCode: 1006, closedBy: 'server', dropped: true });
    expect(session.turns[0].assistant).toBe('Order 7 ');
    expect(session.turns[0].faults).toEqual([
      'cut: truncated (6 of 13 events reached the client)',
      'the socket dropped (1006, no close frame)',
    ]);
  });

  it('notes a refused event as a fault of the turn it came in', () => {
    const log = new SessionLog('wss://x/v1/realtime?model=m', 'openai.realtime');
    log.note({ kind: 'user', via: 'text', text: 'Hi' });
    log.refused({ status: 400, type: 'invalid_request_error', message: "Invalid value: 'nope'." });
    expect(log.evidence(0, {}).turns[0].faults).toEqual(["refused: Invalid value: 'nope'."]);
  });
});

describe("FileSockets: a test's sessions", () => {
  const services = { answer: () => new Promise(() => {}), refused() {}, request: async () => undefined };
  const requests = {
    router: new ProviderRouter(),
    socketServices: () => services,
  } as unknown as FileRequests;
  const peer = { send() {}, close() {}, drop() {} };
  const realtime = {
    url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
    headers: {},
    protocols: [],
  };

  it("shows the sessions opened in the test, and an earlier test's only while it is still in use", () => {
    const sockets = new FileSockets(requests);
    sockets.testStarted();
    const first = sockets.accept(realtime)!.open(peer);
    expect(sockets.evidence().map((s) => [s.index, s.protocol, s.closeCode])).toEqual([
      [0, 'openai.realtime', undefined],
    ]);
    sockets.testFinished();
    // Still open as the next test starts: shown there only if a turn happens in it.
    sockets.testStarted();
    expect(sockets.evidence()).toEqual([]);
    first.message(
      JSON.stringify({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      }),
    );
    expect(sockets.evidence().map((s) => s.turns.map((t) => t.user?.text))).toEqual([['Hi']]);
    first.closed(1000, 'bye');
    expect(sockets.evidence()[0]).toMatchObject({ closeCode: 1000, closeReason: 'bye', closedBy: 'client' });
    sockets.testFinished();
    sockets.testStarted();
    expect(sockets.evidence()).toEqual([]);
  });

  it('scrubs the keys a session carried', () => {
    const sockets = new FileSockets(requests);
    sockets.testStarted();
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const connection = sockets.accept(realtime)!.open(peer);
    connection.message(
      JSON.stringify({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `my key is ${key}` }] },
      }),
    );
    expect(JSON.stringify(sockets.evidence())).not.toContain(key);
  });
});
