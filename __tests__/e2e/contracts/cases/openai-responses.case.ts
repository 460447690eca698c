import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { parallel, rejection } from './shared';

const failure = (p: Promise<unknown>) => rejection(p, OpenAI.APIError);

const tools = [
  {
    type: 'function' as const,
    name: 'get_weather',
    parameters: { type: 'object', properties: {} },
    strict: false,
  },
  {
    type: 'function' as const,
    name: 'get_time',
    parameters: { type: 'object', properties: {} },
    strict: false,
  },
];

it('responses: a chained request that answers one of two calls', async () => {
  understudy.model.use(parallel);
  const client = new OpenAI({ maxRetries: 0 });
  const first = await client.responses.create({
    model: 'gpt-4o',
    input: 'Weather and time in Paris?',
    tools,
  });
  const calls = first.output.filter((o) => o.type === 'function_call');
  const error = await failure(
    client.responses.create({
      model: 'gpt-4o',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: calls[0].call_id, output: '{"tempC":18}' }],
      tools,
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toEqual({
    message: `No tool output found for function call ${calls[1].call_id}.`,
    type: 'invalid_request_error',
    param: 'input',
    code: null,
  });
});

it('responses: a function_call_output for a call that was never made', async () => {
  understudy.model.use(parallel);
  const error = await failure(
    new OpenAI({ maxRetries: 0 }).responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'Paris?' },
        { type: 'function_call_output', call_id: 'call_made_up', output: 'x' },
      ],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    message: 'No tool call found for function call output with call_id call_made_up.',
    param: 'input',
  });
});

it('responses: resending the output items while chaining by previous_response_id', async () => {
  understudy.model.use(parallel);
  const client = new OpenAI({ maxRetries: 0 });
  const first = await client.responses.create({
    model: 'gpt-4o',
    input: 'Weather and time in Paris?',
    tools,
  });
  const outputs: ResponseInputItem[] = first.output.flatMap((o) =>
    o.type === 'function_call'
      ? [{ type: 'function_call_output' as const, call_id: o.call_id, output: '{}' }]
      : [],
  );
  const error = await failure(
    client.responses.create({
      model: 'gpt-4o',
      previous_response_id: first.id,
      input: [...(first.output as ResponseInputItem[]), ...outputs],
      tools,
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({
    message: `Duplicate item found with id ${first.output[0].id}. Remove duplicate items from your input and try again.`,
    param: 'input',
  });
});

const thinking = [
  {
    match: { userMessage: 'Plan', turnIndex: 0 },
    response: { reasoning: 'Think it through.', content: 'Step one.' },
  },
  { match: { userMessage: 'Plan', turnIndex: 1 }, response: { content: 'Step two.' } },
];

it('responses: store false, then the reasoning item sent back by id alone', async () => {
  understudy.model.use(thinking);
  const client = new OpenAI({ maxRetries: 0 });
  const first = await client.responses.create({ model: 'o4-mini', input: 'Plan a trip', store: false });
  const reasoning = first.output.find((o) => o.type === 'reasoning');
  expect(reasoning).toBeDefined();
  expect(reasoning).not.toHaveProperty('encrypted_content');
  const error = await failure(
    client.responses.create({
      model: 'o4-mini',
      store: false,
      input: [
        { role: 'user', content: 'Plan a trip' },
        ...(first.output as ResponseInputItem[]),
        { role: 'user', content: 'and then?' },
      ],
    }),
  );
  expect(error.status).toBe(404);
  expect(error.error).toMatchObject({
    message: `Item with id '${reasoning?.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    param: 'input',
  });
});

it('responses: encrypted reasoning that comes back altered', async () => {
  understudy.model.use(thinking);
  const client = new OpenAI({ maxRetries: 0 });
  const first = await client.responses.create({
    model: 'o4-mini',
    input: 'Plan a trip',
    store: false,
    include: ['reasoning.encrypted_content'],
  });
  const reasoning = first.output.find((o) => o.type === 'reasoning');
  expect(reasoning?.encrypted_content).toMatch(/^gAAAAAB/);
  const altered = {
    ...reasoning,
    encrypted_content: `${reasoning?.encrypted_content}x`,
  } as ResponseInputItem;
  const error = await failure(
    client.responses.create({
      model: 'o4-mini',
      store: false,
      include: ['reasoning.encrypted_content'],
      input: [{ role: 'user', content: 'Plan a trip' }, altered, { role: 'user', content: 'and then?' }],
    }),
  );
  expect(error.status).toBe(400);
  expect(error.error).toMatchObject({ code: 'invalid_encrypted_content', param: 'input' });
});

it('responses: a reply that breaks the text.format schema', async () => {
  understudy.model.use([{ match: {}, response: { content: '{"items":[{"sku":"A1","qty":"two"}]}' } }]);
  await new OpenAI({ maxRetries: 0 }).responses.create({
    model: 'gpt-4o',
    input: 'order as JSON',
    text: {
      format: {
        type: 'json_schema',
        name: 'order',
        strict: true,
        schema: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              items: {
                type: 'object',
                properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
                required: ['sku', 'qty'],
                additionalProperties: false,
              },
            },
          },
          required: ['items'],
          additionalProperties: false,
        },
      },
    },
  });
});
