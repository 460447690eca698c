/**
 * The Realtime protocol under the real clients: the `openai` SDK's OpenAIRealtimeWS and the
 * Agents SDK's RealtimeSession (WebSocket transport) run whole loops against it. A `ws` server
 * on a local port stands in for the carriers here (each client's own hook connects to it); the
 * installed tests run the same clients through the package's carriers.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RealtimeAgent, RealtimeSession, tool } from '@openai/agents/realtime';
import { OpenAIRealtimeWebSocket } from '@openai/agents-realtime';
import { script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { getRuntime } from '../../../../../src/sandbox/runtime';
import { openaiRealtime } from '../../../../../src/sockets/openai-realtime/index';

let server: WebSocketServer;
let port: number;

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  port = (server.address() as { port: number }).port;
  server.on('connection', (ws, request) => {
    const url = new URL(request.url ?? '/', 'wss://api.openai.com');
    const services = getRuntime().requests.socketServices({
      protocol: 'openai.realtime',
      provider: 'openai',
      url: url.href,
      path: '/realtime',
      toolCallIdPrefix: 'call_',
    });
    const connection = openaiRealtime.open(
      {
        url,
        path: '/realtime',
        header: (n) => String(request.headers[n.toLowerCase()] ?? '') || null,
        headers: () => new Headers(),
        protocols: [],
      },
      { send: (d) => ws.send(d), close: (c, r) => ws.close(c, r), drop: () => ws.terminate() },
      services,
    );
    ws.on('message', (data, binary) =>
      connection.message(binary ? new Uint8Array(data as Buffer) : String(data)),
    );
    ws.on('close', (code, reason) => connection.closed(code, String(reason)));
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const toLocal = () => connect(port, '127.0.0.1');

describe("the openai SDK's OpenAIRealtimeWS", () => {
  it('runs a tool loop in text and reads the final answer', async () => {
    understudy.model.use(
      script().user('where is order 7').callsTool('lookup_order', { id: 7 }).replies('Order 7 has shipped.'),
    );
    const run = await understudy.run(async () => {
      const client = new OpenAI({ apiKey: 'sk-test' });
      const rt = new OpenAIRealtimeWS(
        { model: 'gpt-realtime', options: { createConnection: toLocal } as never },
        client,
      );
      rt.on('error', (e) => {
        throw e;
      });
      await new Promise((resolve) => rt.socket.once('open', resolve));
      rt.send({
        type: 'session.update',
        session: {
          type: 'realtime',
          output_modalities: ['text'],
          tools: [{ type: 'function', name: 'lookup_order', parameters: { type: 'object', properties: {} } }],
        },
      });
      rt.send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'where is order 7' }] },
      });
      rt.send({ type: 'response.create' });
      let answer = '';
      await new Promise<void>((resolve) => {
        rt.on('response.function_call_arguments.done', (e) => {
          rt.send({
            type: 'conversation.item.create',
            item: { type: 'function_call_output', call_id: e.call_id, output: '{"status":"shipped"}' },
          });
          rt.send({ type: 'response.create' });
        });
        rt.on('response.output_text.delta', (e) => {
          answer += e.delta;
        });
        rt.on('response.done', (e) => {
          if (e.response.output?.some((o) => o.type === 'message')) resolve();
        });
      });
      rt.close();
      return answer;
    });
    expect(run.output).toBe('Order 7 has shipped.');
    expect(run).toHaveCalledTool('lookup_order', { id: 7 });
    expect(run.finalMessage).toBe('Order 7 has shipped.');
    expect(getRuntime().drainFailures()).toEqual([]);
  });
});

describe("the Agents SDK's RealtimeSession over its WebSocket transport", () => {
  const transport = () =>
    new OpenAIRealtimeWebSocket({
      createWebSocket: async ({ url, apiKey }) =>
        new WebSocket(url, {
          headers: { Authorization: `Bearer ${apiKey}` },
          createConnection: toLocal,
        }) as never,
    });

  it('runs a tool and a handoff, and the run has both and the final transcript', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'refund order 7', turnIndex: 0 },
        response: { toolCalls: [{ name: 'transfer_to_refunds', arguments: '{}' }] },
      },
      {
        match: { userMessage: 'refund order 7', turnIndex: 1 },
        response: { toolCalls: [{ name: 'refund_order', arguments: '{"id":7}' }] },
      },
      {
        match: { userMessage: 'refund order 7', turnIndex: 2 },
        response: { content: 'Order 7 is refunded.' },
      },
    ]);
    const refunded: number[] = [];
    const refunds = new RealtimeAgent({
      name: 'refunds',
      handoffDescription: 'Refunds orders',
      instructions: 'You refund orders.',
      tools: [
        tool({
          name: 'refund_order',
          description: 'Refunds an order',
          parameters: z.object({ id: z.number() }),
          execute: async ({ id }) => {
            refunded.push(id);
            return { refunded: id };
          },
        }),
      ],
    });
    const triage = new RealtimeAgent({
      name: 'triage',
      instructions: 'Route the caller.',
      handoffs: [refunds],
    });
    const run = await understudy.run(async () => {
      const session = new RealtimeSession(triage, { transport: transport(), model: 'gpt-realtime' });
      await session.connect({ apiKey: 'sk-test' });
      const transcript = new Promise<string>((resolve) => {
        session.on('history_updated', (history) => {
          const last = history.at(-1);
          if (last?.type === 'message' && last.role === 'assistant' && last.status === 'completed') {
            const part = last.content[0];
            const text = part && 'transcript' in part ? part.transcript : undefined;
            if (text) resolve(text);
          }
        });
      });
      session.sendMessage('refund order 7');
      const said = await transcript;
      session.close();
      return said;
    });
    expect(refunded).toEqual([7]);
    expect(run.output).toBe('Order 7 is refunded.');
    expect(run).toHaveCalledToolSequence(['transfer_to_refunds', 'refund_order']);
    expect(run.finalMessage).toBe('Order 7 is refunded.');
    expect(run.terminalState).toBe('succeeded');
    expect(getRuntime().drainFailures()).toEqual([]);
  });
});

describe("the Agents SDK's own interruption handling", () => {
  it('a barge-in: the SDK truncates what was played, the spoken turn is heard and answered', async () => {
    understudy.model.use([
      {
        match: { userMessage: 'Tell me about your hours' },
        response: { content: 'We open at nine and close at six, every day but Sunday.' },
        chunkSize: 4,
        chunkDelay: 40,
      },
      { match: { userMessage: 'Stop, just tell me Sunday' }, response: { content: 'Closed on Sunday.' } },
    ]);
    const tone = new Int16Array(24000 * 0.2).map((_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)),
    );
    const silence = new Int16Array(24000 * 0.6);
    const run = await understudy.run(async () => {
      const session = new RealtimeSession(new RealtimeAgent({ name: 'hours', instructions: 'Answer.' }), {
        transport: new OpenAIRealtimeWebSocket({
          createWebSocket: async ({ url, apiKey }) =>
            new WebSocket(url, {
              headers: { Authorization: `Bearer ${apiKey}` },
              createConnection: toLocal,
            }) as never,
        }),
        model: 'gpt-realtime',
      });
      await session.connect({ apiKey: 'sk-test' });
      let spoke = false;
      session.on('audio', () => {
        if (spoke) return;
        spoke = true;
        session.sendAudio(tone.buffer);
        session.sendAudio(silence.buffer);
      });
      const said = new Promise<string>((resolve) => {
        session.on('history_updated', (history) => {
          const last = history.at(-1);
          if (last?.type === 'message' && last.role === 'assistant' && last.status === 'completed') {
            const part = last.content[0];
            const text = part && 'transcript' in part ? part.transcript : undefined;
            if (text === 'Closed on Sunday.') resolve(text);
          }
        });
      });
      session.sendMessage('Tell me about your hours');
      const answer = await said;
      session.close();
      return answer;
    });
    const [first, second] = run.modelCalls;
    expect(first.cut?.reason).toBe('aborted');
    const heard = first.response?.content ?? '';
    expect('We open at nine and close at six, every day but Sunday.'.startsWith(heard)).toBe(true);
    expect(heard.length).toBeLessThan(20);
    expect(second.conversation.messages.at(-1)).toEqual({ role: 'user', text: 'Stop, just tell me Sunday' });
    expect(run.finalMessage).toBe('Closed on Sunday.');
    expect(getRuntime().drainFailures()).toEqual([]);
  });
});

describe('interruptions, as OpenAIRealtimeWS sees them', () => {
  const pcm = (ms: number, tone: boolean) => {
    const samples = (24000 * ms) / 1000;
    const out = Buffer.alloc(samples * 2);
    if (tone)
      for (let i = 0; i < samples; i++)
        out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)), i * 2);
    return out.toString('base64');
  };

  /** The user talks over the answer after 160 ms of it; a careful app cancels and truncates. */
  async function bargeIn(handle: boolean) {
    const rt = new OpenAIRealtimeWS(
      { model: 'gpt-realtime', options: { createConnection: toLocal } as never },
      new OpenAI({ apiKey: 'sk-test' }),
    );
    await new Promise((resolve) => rt.socket.once('open', resolve));
    rt.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        audio: {
          input: {
            turn_detection: { type: 'server_vad', interrupt_response: false, create_response: false },
          },
        },
      },
    });
    let played = 0;
    let item = '';
    await new Promise<void>((resolve) => {
      rt.on('response.output_audio.delta', (e) => {
        item = e.item_id;
        played += Buffer.from(e.delta, 'base64').length / 48;
        if (played === 160) rt.send({ type: 'input_audio_buffer.append', audio: pcm(200, true) });
      });
      rt.on('input_audio_buffer.speech_started', () => {
        if (!handle) return;
        rt.send({ type: 'response.cancel' });
        rt.send({
          type: 'conversation.item.truncate',
          item_id: item,
          content_index: 0,
          audio_end_ms: played,
        });
      });
      rt.on('response.done', () => resolve());
      rt.send({
        type: 'conversation.item.create',
        item: {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Tell me about your hours' }],
        },
      });
      rt.send({ type: 'response.create' });
    });
    rt.close();
  }

  const longAnswer = () =>
    understudy.model.use([
      {
        match: { userMessage: 'Tell me about your hours' },
        response: { content: 'We open at nine and close at six, every day but Sunday.' },
        chunkSize: 4,
        chunkDelay: 40,
      },
    ]);

  it('handled: the call keeps what the user heard', async () => {
    longAnswer();
    const run = await understudy.run(() => bargeIn(true));
    expect(run.modelCalls[0].cut?.reason).toBe('aborted');
    expect(run.modelCalls[0].response?.content).toBe('We o');
    expect(getRuntime().drainFailures()).toEqual([]);
  });

  it('not handled: the answer went out whole over the user, and the call says so', async () => {
    longAnswer();
    const run = await understudy.run(() => bargeIn(false));
    expect(run.modelCalls[0].cut).toBeUndefined();
    expect(run.modelCalls[0].response?.content).toBe(
      'We open at nine and close at six, every day but Sunday.',
    );
    expect(getRuntime().drainFailures()).toEqual([]);
  });
});
