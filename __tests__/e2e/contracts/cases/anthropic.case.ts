import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { parallel, rejection } from './shared';

const tools: Tool[] = [
  { name: 'get_weather', input_schema: { type: 'object', properties: {} } },
  { name: 'get_time', input_schema: { type: 'object', properties: {} } },
];

const failure = (p: Promise<unknown>) => rejection(p, Anthropic.APIError);

const base = { model: 'claude-sonnet-4-6', max_tokens: 1024, tools };

for (const stream of [false, true]) {
  it(`anthropic: an agent that drops one of two tool results (${stream ? 'streamed' : 'plain'})`, async () => {
    understudy.model.use(parallel);
    const client = new Anthropic({ maxRetries: 0 });
    const messages: MessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
    const reply = stream
      ? await client.messages.stream({ ...base, messages }).finalMessage()
      : await client.messages.create({ ...base, messages });
    const uses = reply.content.filter((b) => b.type === 'tool_use');
    messages.push({ role: 'assistant', content: reply.content });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: uses[0].id, content: '18°C' }],
    });
    const error = await failure(client.messages.create({ ...base, messages }));
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: `messages.1: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${uses[1].id}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      },
    });
  });
}

it('anthropic: text before the tool results in the user turn', async () => {
  understudy.model.use(parallel);
  const client = new Anthropic({ maxRetries: 0 });
  const messages: MessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
  const reply = await client.messages.create({ ...base, messages });
  messages.push({ role: 'assistant', content: reply.content });
  messages.push({
    role: 'user',
    content: [
      { type: 'text', text: 'Here you go:' },
      ...reply.content.flatMap((b) =>
        b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: 'ok' }] : [],
      ),
    ],
  });
  const error = await failure(client.messages.create({ ...base, messages }));
  expect(error.status).toBe(400);
  expect(error.message).toContain('`tool_use` ids were found without `tool_result` blocks immediately after');
});

it('anthropic: a tool_result for a tool_use that was never made', async () => {
  understudy.model.use(parallel);
  const error = await failure(
    new Anthropic({ maxRetries: 0 }).messages.create({
      ...base,
      messages: [
        { role: 'user', content: 'Paris?' },
        { role: 'assistant', content: 'Let me check.' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_made_up', content: 'x' }] },
      ],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    error: {
      message:
        'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_made_up. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    },
  });
});

const thinkingFixtures = [
  {
    match: { userMessage: 'Oslo', hasToolResult: false },
    response: { reasoning: 'I need the weather tool.', toolCalls: [{ name: 'get_weather', arguments: {} }] },
  },
  { match: { userMessage: 'Oslo', hasToolResult: true }, response: { content: 'Cold.' } },
];
const thinkingOn = { ...base, max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 } };

it('anthropic: thinking on, the tool-use turn sent back without its thinking block', async () => {
  understudy.model.use(thinkingFixtures);
  const client = new Anthropic({ maxRetries: 0 });
  const messages: MessageParam[] = [{ role: 'user', content: 'Oslo weather?' }];
  const reply = await client.messages.stream({ ...thinkingOn, messages }).finalMessage();
  expect(reply.content[0].type).toBe('thinking');
  const use = reply.content.find((b) => b.type === 'tool_use');
  messages.push({ role: 'assistant', content: reply.content.filter((b) => b.type !== 'thinking') });
  messages.push({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: String(use?.id), content: '-3°C' }],
  });
  const error = await failure(client.messages.create({ ...thinkingOn, messages }));
  expect(error.status).toBe(400);
  expect(error.message).toContain(
    'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block',
  );
});

it('anthropic: thinking on, the thinking text edited before it goes back', async () => {
  understudy.model.use(thinkingFixtures);
  const client = new Anthropic({ maxRetries: 0 });
  const messages: MessageParam[] = [{ role: 'user', content: 'Oslo weather?' }];
  const reply = await client.messages.create({ ...thinkingOn, messages });
  const use = reply.content.find((b) => b.type === 'tool_use');
  messages.push({
    role: 'assistant',
    content: reply.content.map((b) =>
      b.type === 'thinking' ? { ...b, thinking: `${b.thinking} (summarised)` } : b,
    ),
  });
  messages.push({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: String(use?.id), content: '-3°C' }],
  });
  const error = await failure(client.messages.create({ ...thinkingOn, messages }));
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    error: { message: 'messages.1.content.0: Invalid `signature` in `thinking` block' },
  });
});

it('anthropic: an empty text block in the history', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const error = await failure(
    new Anthropic({ maxRetries: 0 }).messages.create({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'text', text: '' }] },
        { role: 'user', content: 'still there?' },
      ],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    error: { message: 'messages: text content blocks must be non-empty' },
  });
});

it('anthropic: the same tool_use id twice', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const turn = (text: string): MessageParam[] => [
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_same', name: 'get_time', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_same', content: text }] },
  ];
  const error = await failure(
    new Anthropic({ maxRetries: 0 }).messages.create({
      ...base,
      messages: [{ role: 'user', content: 'time?' }, ...turn('9:00'), ...turn('9:01')],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    error: { message: 'messages.3.content.0: `tool_use` ids must be unique' },
  });
});

it('anthropic: a tool name with a dot', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const error = await failure(
    new Anthropic({ maxRetries: 0 }).messages.create({
      ...base,
      tools: [{ name: 'calendar.create_event', input_schema: { type: 'object', properties: {} } }],
      messages: [{ role: 'user', content: 'book it' }],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    error: { message: "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'" },
  });
});

it('anthropic: a forced tool whose fixture arguments break its schema', async () => {
  understudy.model.use([
    { match: {}, response: { toolCalls: [{ name: 'record', arguments: { rating: 'five' } }] } },
  ]);
  await new Anthropic({ maxRetries: 0 }).messages.create({
    ...base,
    tools: [
      {
        name: 'record',
        input_schema: { type: 'object', properties: { rating: { type: 'integer' } }, required: ['rating'] },
      },
    ],
    tool_choice: { type: 'tool', name: 'record' },
    messages: [{ role: 'user', content: 'rate it' }],
  });
});
