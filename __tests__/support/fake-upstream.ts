/**
 * A stand-in for the real providers, served over loopback by a plain node:http server:
 * `/openai/v1/chat/completions`, `/openai/v1/responses`, `/anthropic/v1/messages` and
 * `/gemini/v1beta/models/<m>:generateContent` / `:streamGenerateContent?alt=sse` and
 * `/bedrock/model/<m>/converse` / `converse-stream` (the binary event stream) and
 * `/ollama/api/chat` (NDJSON; a local server, it takes no key), plain and
 * streamed, built from the codecs' own encoders. It checks the key like a provider would
 * and answers like a small deterministic model: a user question gets a tool call, a tool
 * result gets an answer that quotes it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Conversation, matchKeysOf, type NeutralReply } from '../../src/conversation';
import { anthropicMessages } from '../../src/providers/anthropic-messages';
import { bedrockConverse } from '../../src/providers/bedrock-converse';
import type { ProviderCodec } from '../../src/providers/codec';
import { geminiGenerateContent } from '../../src/providers/gemini';
import { ollamaChat } from '../../src/providers/ollama';
import { openaiChat } from '../../src/providers/openai-chat';
import { openaiResponses } from '../../src/providers/openai-responses';
import { createConversationStore } from '../../src/providers/store';

export interface FakeUpstream {
  url: string;
  /** Requests served so far (method, path, whether streamed). */
  requests: Array<{ path: string; streamed: boolean; key: string | null }>;
  close(): Promise<void>;
}

const bearer = (r: IncomingMessage) => String(r.headers.authorization ?? '').replace(/^Bearer /, '') || null;

const ROUTES: Array<{ prefix: string; codec: ProviderCodec; key: (r: IncomingMessage) => string | null }> = [
  { prefix: '/openai/v1', codec: openaiChat, key: bearer },
  { prefix: '/openai/v1', codec: openaiResponses, key: bearer },
  // Recent Anthropic SDKs send the key as a bearer token; older ones as x-api-key.
  {
    prefix: '/anthropic',
    codec: anthropicMessages,
    key: (r) => (r.headers['x-api-key'] as string | undefined) ?? bearer(r),
  },
  {
    prefix: '/gemini',
    codec: geminiGenerateContent,
    key: (r) => (r.headers['x-goog-api-key'] as string) ?? null,
  },
  // The access key id a SigV4 signature names (the fake checks no signature).
  {
    prefix: '/bedrock',
    codec: bedrockConverse,
    key: (r) => /Credential=([^/]+)\//.exec(String(r.headers.authorization ?? ''))?.[1] ?? null,
  },
  { prefix: '/ollama', codec: ollamaChat, key: () => null },
];

const usage = { inputTokens: 31, outputTokens: 9, totalTokens: 40, cachedInputTokens: 0, reasoningTokens: 0 };

/** The "model": look the order up (two orders → two parallel calls), then answer from the results. */
function think(conversation: Conversation, serial: number, idPrefix: string): NeutralReply {
  const keys = matchKeysOf(conversation);
  const model = `${conversation.model}-2026-01-01`;
  const judged = judge(keys.systemMessage);
  if (judged) return { content: judged, toolCalls: [], finishReason: 'stop', usage, model };
  if (!keys.hasToolResult) {
    const orders = (keys.userMessage ?? '').match(/[A-Z]-\d{4}/g) ?? [];
    if (orders.length === 0)
      return { content: `You said: ${keys.userMessage}`, toolCalls: [], finishReason: 'stop', usage, model };
    return {
      content: null,
      toolCalls: orders.map((orderId, i) => ({
        id: `${idPrefix}up${serial}x${i}`,
        name: 'lookup_order',
        arguments: JSON.stringify({ orderId }),
      })),
      finishReason: 'tool_calls',
      usage,
      model,
    };
  }
  const results = conversation.messages.filter((m) => m.role === 'tool').map((m) => m.text);
  const system = conversation.messages.find((m) => m.role === 'system')?.text ?? '';
  return {
    content: `${system.includes('terse') ? 'Status' : 'Here is the status'}: ${results.join('; ')}.`,
    toolCalls: [],
    finishReason: 'stop',
    usage: { ...usage, cachedInputTokens: 8 },
    model,
  };
}

/**
 * A judge's request (toSatisfyJudge: rubric and text in the system prompt) gets a verdict: pass
 * when the text contains the phrase the rubric quotes, else fail.
 */
function judge(system: string): string | undefined {
  const rubric = /<rubric>\n([\s\S]*?)\n<\/rubric>/.exec(system)?.[1];
  const text = /<text>\n([\s\S]*?)\n<\/text>/.exec(system)?.[1];
  if (rubric === undefined || text === undefined) return undefined;
  const phrase = /"([^"]+)"/.exec(rubric)?.[1] ?? rubric;
  const found = text.toLowerCase().includes(phrase.toLowerCase());
  return JSON.stringify({
    verdict: found ? 'pass' : 'fail',
    reasons: [`the text ${found ? 'mentions' : 'does not mention'} "${phrase}"`],
  });
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, text: string): void {
  res.writeHead(status, headers);
  res.end(text);
}

/** How the stand-in answers a request (the n-th it served); `think` above unless a driver gives its own. */
export type UpstreamBrain = (conversation: Conversation, serial: number, idPrefix: string) => NeutralReply;

export async function startFakeUpstream(
  expectedKeys: Record<string, string>,
  brain: UpstreamBrain = think,
): Promise<FakeUpstream> {
  const requests: FakeUpstream['requests'] = [];
  // Stateful protocols keep threads by the ids this server hands out, as the real ones do.
  const store = createConversationStore();
  let serial = 500;
  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://upstream');
      const route = ROUTES.find(
        (r) =>
          url.pathname.startsWith(r.prefix) &&
          r.codec.handles(req.method ?? '', url.pathname.slice(r.prefix.length)),
      );
      if (!route) return send(res, 404, { 'content-type': 'text/plain' }, `no route for ${url.pathname}`);
      const { codec } = route;
      const key = route.key(req);
      const path = url.pathname.slice(route.prefix.length);
      const text = await body(req);
      if (key !== (expectedKeys[codec.provider] ?? null)) {
        const wire = codec.encodeError({
          status: 401,
          type: 'authentication_error',
          message: 'Invalid API key',
        });
        return send(res, wire.status, wire.headers, wire.body);
      }
      const decoded = codec.decode(JSON.parse(text), { path, query: url.searchParams, store });
      if (!decoded.ok) {
        const wire = codec.encodeError(decoded.error);
        return send(res, wire.status, wire.headers, wire.body);
      }
      const conversation = decoded.conversation;
      requests.push({ path: url.pathname, streamed: conversation.stream, key });
      const n = serial++;
      const reply = brain(conversation, n, codec.toolCallIdPrefix ?? 'call_');
      const ctx = { callIndex: n, created: 1767225600, shaping: { chunkSize: 7 }, store };
      if (!conversation.stream) {
        const wire = codec.encodeReply(reply, conversation, ctx);
        return send(res, wire.status, { ...wire.headers, 'x-upstream-secret': 'never-stored' }, wire.body);
      }
      const wire = codec.encodeStream(reply, conversation, ctx);
      res.writeHead(wire.status, wire.headers);
      // One event per write, each after a tick: the agent and the recorder both see a real stream.
      for (const event of wire.events) {
        res.write(event);
        await new Promise((r) => setTimeout(r, 1));
      }
      res.end();
    } catch (error) {
      send(res, 500, { 'content-type': 'text/plain' }, String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
