/**
 * Embeddings through the official clients and the AI SDK: deterministic vectors of each model's
 * length (and `dimensions`), base64 or float, and aimock's embedding fixtures as overrides.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { join } from 'node:path';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from '@jest/globals';
import { cosineSimilarity, embed, embedMany } from 'ai';
import { loadFixtures, understudy } from 'jest-understudy';
import OpenAI from 'openai';

const openai = () => new OpenAI({ maxRetries: 0 });
const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('OpenAI embeddings', () => {
  it('answers embeddings.create with a unit vector of the model’s length, the same on every run', async () => {
    const first = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: 'refund policy',
    });
    const again = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: 'refund policy',
    });
    expect(first.data).toHaveLength(1);
    expect(first.data[0].embedding).toHaveLength(1536);
    expect(norm(first.data[0].embedding)).toBeCloseTo(1, 5);
    expect(again.data[0].embedding).toEqual(first.data[0].embedding);
    expect(first.model).toBe('text-embedding-3-small');
    expect(first.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    const large = await openai().embeddings.create({
      model: 'text-embedding-3-large',
      input: 'refund policy',
    });
    expect(large.data[0].embedding).toHaveLength(3072);
    expect(understudy.model.embeddings.map((c) => [c.protocol, c.model, c.dimensions])).toEqual([
      ['openai.embeddings', 'text-embedding-3-small', 1536],
      ['openai.embeddings', 'text-embedding-3-small', 1536],
      ['openai.embeddings', 'text-embedding-3-large', 3072],
    ]);
  });

  it('sends base64 float32 when asked (openai-node asks by default and decodes it), the same values as float', async () => {
    const viaSdk = await openai().embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(understudy.model.embeddings[0]).toMatchObject({ inputs: ['a', 'b'] });
    const raw = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: 'a',
      encoding_format: 'base64',
    });
    const b64 = raw.data[0].embedding as unknown as string;
    expect(typeof b64).toBe('string');
    const bytes = Buffer.from(b64, 'base64');
    const floats = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    const plain = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: 'a',
      encoding_format: 'float',
    });
    expect(floats).toEqual(plain.data[0].embedding);
    expect(viaSdk.data[0].embedding).toEqual(plain.data[0].embedding);
  });

  it('honours dimensions (the leading components, normalized again), and refuses it on ada-002 as the API does', async () => {
    const short = await openai().embeddings.create({
      model: 'text-embedding-3-large',
      input: 'x y',
      dimensions: 256,
    });
    expect(short.data[0].embedding).toHaveLength(256);
    expect(norm(short.data[0].embedding)).toBeCloseTo(1, 5);
    // This test means to send what the API refuses: it reads the 400 without failing for it.
    understudy.model.contracts({ parameters: false });
    const error = await openai()
      .embeddings.create({ model: 'text-embedding-ada-002', input: 'x', dimensions: 256 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('This model does not support specifying dimensions.');
  });

  it('ranks documents that share words with the query first (cosine similarity), as a RAG agent retrieves', async () => {
    const docs = [
      'Refunds are issued within 14 days',
      'Our office is closed on Sundays',
      'Shipping takes 3 days',
    ];
    const { data } = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: docs,
      encoding_format: 'float',
    });
    const [query] = (
      await openai().embeddings.create({
        model: 'text-embedding-3-small',
        input: 'how are refunds issued',
        encoding_format: 'float',
      })
    ).data;
    const scores = data.map((d) => cosineSimilarity(query.embedding, d.embedding));
    expect(scores.indexOf(Math.max(...scores))).toBe(0);
  });

  it('replays aimock embedding fixtures: the vector of the fixture whose inputText the input contains, per input', async () => {
    understudy.model.use(loadFixtures(join(__dirname, 'fixtures', 'aimock-embeddings.fixture.json')));
    const out = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: ['the refund policy', 'something else'],
      encoding_format: 'float',
    });
    expect(out.data[0].embedding).toEqual([0.1, 0.2, 0.3]);
    expect(out.data[1].embedding).toHaveLength(1536);
    expect(understudy.model.embeddings[0].fixtures.map((f) => f?.match.inputText)).toEqual([
      'refund',
      undefined,
    ]);
  });

  it('answers an embedding error fixture with the provider error', async () => {
    understudy.model.use([
      {
        match: { endpoint: 'embedding', inputText: 'boom' },
        response: { error: { status: 429, message: 'Slow down' } },
      },
    ]);
    const error = await openai()
      .embeddings.create({ model: 'text-embedding-3-small', input: 'boom' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(understudy.model.embeddings[0].error).toMatchObject({ status: 429, message: 'Slow down' });
  });

  it('embedding fixtures never answer chat, and chat fixtures never answer embeddings', async () => {
    understudy.model.use([
      { match: { inputText: 'hello' }, response: { embedding: [1, 0] } },
      { match: {}, response: { content: 'Chat reply.' } },
    ]);
    const chat = await openai().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(chat.choices[0].message.content).toBe('Chat reply.');
    const e = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: 'hello',
      encoding_format: 'float',
    });
    expect(e.data[0].embedding).toEqual([1, 0]);
  });
});

describe('Gemini embeddings', () => {
  it('answers @google/genai models.embedContent (batchEmbedContents) per content, with outputDimensionality', async () => {
    const ai = new GoogleGenAI({ apiKey: 'x' });
    const out = await ai.models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['refund policy', 'opening hours'],
    });
    expect(out.embeddings?.map((e) => e.values?.length)).toEqual([3072, 3072]);
    const short = await ai.models.embedContent({
      model: 'gemini-embedding-001',
      contents: 'refund policy',
      config: { outputDimensionality: 768 },
    });
    expect(short.embeddings?.[0].values).toHaveLength(768);
    expect(understudy.model.embeddings.map((c) => c.protocol)).toEqual([
      'gemini.embedContent',
      'gemini.embedContent',
    ]);
  });
});

describe('AI SDK embed / embedMany', () => {
  it('@ai-sdk/openai', async () => {
    const model = createOpenAI({ apiKey: 'x' }).embedding('text-embedding-3-small');
    const one = await embed({ model, value: 'refund policy' });
    const many = await embedMany({ model, values: ['refund policy', 'opening hours'] });
    expect(one.embedding).toHaveLength(1536);
    expect(many.embeddings[0]).toEqual(one.embedding);
    expect(many.embeddings).toHaveLength(2);
  });

  it('@ai-sdk/google (embedContent and batchEmbedContents)', async () => {
    const model = createGoogleGenerativeAI({ apiKey: 'x' }).textEmbeddingModel('gemini-embedding-001');
    const one = await embed({ model, value: 'refund policy' });
    const many = await embedMany({ model, values: ['refund policy', 'opening hours'] });
    expect(one.embedding).toHaveLength(3072);
    expect(many.embeddings[0]).toEqual(one.embedding);
  });
});
