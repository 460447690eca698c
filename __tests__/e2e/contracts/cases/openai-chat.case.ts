import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { parallel, rejection } from './shared';

const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
];

const failure = (p: Promise<unknown>) => rejection(p, OpenAI.APIError);

/** An agent loop that answers only the first of the parallel calls it gets. */
async function dropsOneResult(client: OpenAI, stream: boolean) {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
  const first = stream
    ? await client.chat.completions.stream({ model: 'gpt-4o', messages, tools }).finalChatCompletion()
    : await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
  const message = first.choices[0].message;
  messages.push(message);
  const [call] = message.tool_calls ?? [];
  messages.push({ role: 'tool', tool_call_id: call.id, content: '{"tempC":18}' });
  return { messages, calls: message.tool_calls ?? [] };
}

for (const stream of [false, true]) {
  it(`chat: an agent that drops one of two parallel tool results (${stream ? 'streamed' : 'plain'})`, async () => {
    understudy.model.use(parallel);
    const client = new OpenAI({ maxRetries: 0 });
    const { messages, calls } = await dropsOneResult(client, stream);
    const error = await failure(client.chat.completions.create({ model: 'gpt-4o', messages, tools }));
    expect(error.status).toBe(400);
    expect(error.error).toEqual({
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${calls[1].id}`,
      type: 'invalid_request_error',
      param: 'messages.[1].role',
      code: null,
    });
    // The request never reached a fixture: no reply was chosen for it.
    expect(understudy.model.calls.at(-1)).toMatchObject({
      contract: { rule: 'tool-results', at: 'messages[1]' },
    });
    expect(understudy.model.calls.at(-1)?.fixture).toBeUndefined();
  });
}

it('chat: a tool message that answers no call', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const client = new OpenAI({ maxRetries: 0 });
  const error = await failure(
    client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'call_nowhere', content: 'result' },
      ],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    message:
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    param: 'messages.[1].role',
  });
});

it('chat: a tool name the API does not accept', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const error = await failure(
    new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'list files' }],
      tools: [
        { type: 'function', function: { name: 'fs.list', parameters: { type: 'object', properties: {} } } },
      ],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    message:
      "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
    param: 'tools[0].function.name',
    code: 'invalid_value',
  });
});

it('chat: a strict tool whose schema leaves objects open', async () => {
  understudy.model.use([{ match: {}, response: { content: 'ok' } }]);
  const error = await failure(
    new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'book it' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'book',
            strict: true,
            parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
          },
        },
      ],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    message:
      "Invalid schema for function 'book': In context=(), 'additionalProperties' is required to be supplied and to be false.",
    param: 'tools[0].function.parameters',
    code: 'invalid_function_parameters',
  });
});

it('chat: a reply that breaks the requested json_schema', async () => {
  understudy.model.use([{ match: {}, response: { content: '{"city":"Paris","tempC":"warm"}' } }]);
  const completion = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'weather as JSON' }],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'weather',
        strict: true,
        schema: {
          type: 'object',
          properties: { city: { type: 'string' }, tempC: { type: 'number' } },
          required: ['city', 'tempC'],
          additionalProperties: false,
        },
      },
    },
  });
  // The fixture's reply still goes out: the test fails on the fixture, not on the agent.
  expect(completion.choices[0].message.content).toBe('{"city":"Paris","tempC":"warm"}');
});
