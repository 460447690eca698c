/** @jest-environment ./environment/jest/index.ts */
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { describe, expect, it } from '@jest/globals';
import { type Fixture, understudy } from 'jest-understudy';

const searched: string[] = [];
const fetched: string[] = [];

const searchDocs = betaTool({
  name: 'search_docs',
  description: 'Search the docs',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  run: ({ query }) => {
    searched.push(query);
    return JSON.stringify({ hits: [`docs/${query.replace(/\s+/g, '-')}`] });
  },
});

const fetchPage = betaTool({
  name: 'fetch_page',
  description: 'Fetch a docs page',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  run: ({ path }) => {
    fetched.push(path);
    return `# ${path}\nRun \`keys rotate\`.`;
  },
});

// Provider-neutral fixtures: the same ones would drive an OpenAI or Gemini agent.
const fixtures: Fixture[] = [
  {
    match: { userMessage: 'rotate keys', turnIndex: 0, hasToolResult: false },
    response: {
      chunkSize: 3,
      toolCalls: [
        { name: 'search_docs', arguments: { query: 'rotate keys' } },
        { name: 'fetch_page', arguments: { path: 'docs/keys' } },
      ],
    },
  },
  {
    match: { userMessage: 'rotate keys', turnIndex: 1, hasToolResult: true },
    response: { content: 'Run `keys rotate`, see docs/keys.' },
  },
];

describe('the SDK tool runner (client.beta.messages.toolRunner)', () => {
  for (const stream of [false, true]) {
    it(`runs parallel tool calls to the final answer over a message thread (${stream ? 'streamed' : 'not streamed'})`, async () => {
      searched.length = 0;
      fetched.length = 0;
      understudy.model.use(fixtures);
      const run = await understudy.run(async () => {
        const runner = new Anthropic().beta.messages.toolRunner({
          model: 'claude-sonnet-4-6',
          max_tokens: 1024,
          system: 'You answer from the docs.',
          tools: [searchDocs, fetchPage],
          messages: [{ role: 'user', content: 'How do I rotate keys?' }],
          ...(stream ? { stream: true as const } : {}),
        });
        const final = await runner.runUntilDone();
        return final.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      });
      expect(run.terminalState).toBe('succeeded');
      expect(run.output).toBe('Run `keys rotate`, see docs/keys.');
      expect(searched).toEqual(['rotate keys']);
      expect(fetched).toEqual(['docs/keys']);
      expect(run.toolCalls).toEqual([
        expect.objectContaining({
          name: 'search_docs',
          arguments: { query: 'rotate keys' },
          result: { hits: ['docs/rotate-keys'] },
        }),
        expect.objectContaining({
          name: 'fetch_page',
          arguments: { path: 'docs/keys' },
          result: '# docs/keys\nRun `keys rotate`.',
        }),
      ]);
      expect(run.modelCalls.map((c) => c.streamed)).toEqual([stream, stream]);

      // The runner threads the conversation: the second request sends only the tool results,
      // without system and tools, and continues from the first reply's id.
      const [first, second] = run.modelCalls.map((c) => c.request as Record<string, any>);
      expect(first.thread).toEqual({ type: 'create' });
      expect(second.thread).toEqual({
        type: 'continue',
        previous_message_id: expect.stringMatching(/^msg_understudy/),
      });
      expect(second.system).toBeUndefined();
      expect(second.tools).toBeUndefined();
      expect(second.messages).toHaveLength(1);
      // …and the mock model still sees the whole thread.
      const thread = run.modelCalls[1].conversation;
      expect(thread.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
      expect(thread.tools.map((t) => t.name)).toEqual(['search_docs', 'fetch_page']);
    });
  }

  it('sends the full history every turn with thread: false', async () => {
    searched.length = 0;
    fetched.length = 0;
    understudy.model.use(fixtures);
    const final = await new Anthropic().beta.messages.toolRunner({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      thread: false,
      tools: [searchDocs, fetchPage],
      messages: [{ role: 'user', content: 'How do I rotate keys?' }],
    });
    expect(final.content).toEqual([{ type: 'text', text: 'Run `keys rotate`, see docs/keys.' }]);
    const second = understudy.model.calls[1].request as Record<string, any>;
    expect(second.thread).toBeUndefined();
    expect(second.messages).toHaveLength(3);
  });
});

describe('message threads (client.beta.messages.thread)', () => {
  it('continues a server-held thread turn by turn; each request sends only the new message', async () => {
    understudy.model.use([
      { match: { userMessage: 'Hello', turnIndex: 0 }, response: { content: 'Hi! What do you need?' } },
      { match: { userMessage: 'rotate keys', turnIndex: 1 }, response: { content: 'Run `keys rotate`.' } },
    ]);
    const thread = new Anthropic().beta.messages.thread({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      system: 'You answer from the docs.',
    });
    const first = await thread.send({ role: 'user', content: 'Hello' });
    expect(first.content).toEqual([{ type: 'text', text: 'Hi! What do you need?' }]);
    expect(thread.previousMessageId).toBe(first.id);
    const second = await thread.send({ role: 'user', content: 'How do I rotate keys?' });
    expect(second.content).toEqual([{ type: 'text', text: 'Run `keys rotate`.' }]);
    const requests = understudy.model.calls.map((c) => c.request as Record<string, any>);
    expect(requests[1]).toMatchObject({
      thread: { type: 'continue', previous_message_id: first.id },
      messages: [{ role: 'user', content: 'How do I rotate keys?' }],
    });
    expect(understudy.model.calls[1].conversation.messages.map((m) => [m.role, m.text])).toEqual([
      ['system', 'You answer from the docs.'],
      ['user', 'Hello'],
      ['assistant', 'Hi! What do you need?'],
      ['user', 'How do I rotate keys?'],
    ]);
  });
});
