/**
 * What was delivered, in live mode, from the installed package under Jest (CommonJS and ESM) and
 * Vitest: the provider's stream (a
 * stand-in on loopback) is teed to the agent and the recorder, and the run holds what the agent
 * read of it when the provider cuts the stream or the agent gives up (delivered-live.case.js).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NeutralReply } from '../../src/conversation';
import { anthropicMessages } from '../../src/providers/anthropic-messages';
import type { ProviderCodec } from '../../src/providers/codec';
import { openaiChat } from '../../src/providers/openai-chat';
import { createConversationStore } from '../../src/providers/store';
import { expectOnlyFalseGreensFailed, failureOf } from '../support/delivered';
import { fileOf, RUNNERS, runInstalled } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

const KEYS = {
  OPENAI_API_KEY: 'sk-test-DELIVERED0123456789abcdef',
  ANTHROPIC_API_KEY: 'sk-ant-test-DELIVERED0123456789',
};
const usage = { inputTokens: 9, outputTokens: 30, totalTokens: 39, cachedInputTokens: 0, reasoningTokens: 0 };
const REPLY: NeutralReply = {
  content: 'It is 18 C in Paris. A storm is coming, stay inside.',
  toolCalls: [{ id: 'call_up1', name: 'transfer', arguments: '{"to":"alice","amount":100}' }],
  finishReason: 'tool_calls',
  usage,
  model: 'stand-in',
};
const ROUTES: Array<[string, ProviderCodec]> = [
  ['/openai/v1', openaiChat],
  ['/anthropic', anthropicMessages],
];

/**
 * A provider on loopback that streams REPLY in 4-character chunks, shaped by the model asked
 * for: `cut` drops the connection inside the call's arguments, `paced` waits 20 ms between
 * events, `whole` sends it all.
 */
function startUpstream(): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const route = ROUTES.find(([prefix]) => req.url?.startsWith(prefix));
    if (!route) return void res.writeHead(404).end();
    const [prefix, codec] = route;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const store = createConversationStore();
    const decoded = codec.decode(JSON.parse(Buffer.concat(chunks).toString('utf8')), {
      path: (req.url ?? '').slice(prefix.length),
      query: new URLSearchParams(),
      store,
    });
    if (!decoded.ok) return void res.writeHead(400).end(JSON.stringify(decoded.error));
    const { conversation } = decoded;
    const wire = codec.encodeStream(REPLY, conversation, {
      callIndex: 1,
      created: 1767225600,
      shaping: { chunkSize: 4 },
      store,
    });
    res.writeHead(wire.status, wire.headers);
    const cutAt = wire.events.findIndex((e) => String(e).includes('lice'));
    for (const [at, event] of wire.events.entries()) {
      if (conversation.model === 'cut' && at > cutAt) {
        // Written, then the connection dropped: the client reads what was sent, then an error.
        await new Promise<void>((sent) => res.write('', () => sent()));
        return void res.destroy();
      }
      res.write(event);
      if (conversation.model === 'paced') await new Promise((r) => setTimeout(r, 20));
    }
    res.end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe('what was delivered, in live mode', () => {
  let upstream: { server: Server; url: string };
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(() => {
    upstream.server.closeAllConnections();
    upstream.server.close();
  });

  it.each(runnersOf(__filename))(
    'a teed provider stream, cut by the provider or given up by the agent (%s)',
    async (runner) => {
      const run = await runInstalled({
        ...RUNNERS[runner],
        cases: ['delivered-live.case.js'],
        understudy: {
          providers: {
            openai: { baseURL: `${upstream.url}/openai/v1` },
            anthropic: { baseURL: `${upstream.url}/anthropic` },
          },
        },
        env: { CI: undefined, UNDERSTUDY_MODE: 'live', DELIVERED_UPSTREAM: upstream.url, ...KEYS },
      });
      const file = fileOf(run, 'delivered-live.case.js');
      const falseGreens = expectOnlyFalseGreensFailed(file);
      expect(falseGreens).toHaveLength(4);
      for (const protocol of ['openai.chat', 'anthropic.messages']) {
        expect(
          failureOf(
            file,
            `${protocol} no false green: toHaveFinalMessage on the text of a stream the agent gave up on`,
          ),
        ).toContain('toHaveFinalMessage');
        expect(
          failureOf(
            file,
            `${protocol} no false green: toHaveRequestedTool with the arguments of a call the provider cut`,
          ),
        ).toContain('toHaveRequestedTool');
      }
    },
    180_000,
  );
});
