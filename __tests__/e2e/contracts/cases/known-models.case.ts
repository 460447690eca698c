import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { expect, it } from '@jest/globals';
import { loadFixtures, understudy } from 'jest-understudy';
import OpenAI from 'openai';

const fixtures = () => loadFixtures(join(__dirname, 'models.fixture.json'));

it('models: a declared model and its dated snapshot are served', async () => {
  understudy.model.use(fixtures());
  const client = new OpenAI({ maxRetries: 0 });
  for (const model of ['gpt-4o', 'gpt-4o-2024-08-06']) {
    const c = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });
    expect(c.choices[0].message.content).toBe('Hi there.');
  }
  const g = await new GoogleGenAI({ apiKey: 'k' }).models.generateContent({
    model: 'gemini-2.5-pro',
    contents: 'hello',
  });
  expect(g.text).toBe('Hi there.');
});

it('models: openai, a model the fixture file does not declare', async () => {
  understudy.model.use(fixtures());
  const error = await new OpenAI({ maxRetries: 0 }).chat.completions
    .create({ model: 'gpt-4o-mimi', messages: [{ role: 'user', content: 'hello' }] })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
    message: 'The model `gpt-4o-mimi` does not exist or you do not have access to it.',
    code: 'model_not_found',
  });
});

it('models: anthropic, a model the fixture file does not declare', async () => {
  understudy.model.use(fixtures());
  const error = await new Anthropic({ maxRetries: 0 }).messages
    .create({ model: 'claude-sonet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Anthropic.NotFoundError);
  expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
    error: { type: 'not_found_error', message: 'model: claude-sonet-4-6' },
  });
});
