/**
 * Failures after the 200: the stream sends part of the reply, then the provider's error event,
 * and the official clients surface it as the provider's error (fixture `streamError`, chaos
 * `streamErrorRate`). A plain request gets the same failure as an error response.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import Anthropic from '@anthropic-ai/sdk';
import { ModelStreamErrorException, ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import { ApiError } from '@google/genai';
import { describe, expect, it } from '@jest/globals';
import { type LanguageModel, streamText } from 'ai';
import { type Fixture, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import {
  type Agent,
  aiSdkModels,
  anthropic,
  bedrock,
  gemini,
  openaiChat,
} from '../../../../support/agents/agents';

const failing = (streamError: NonNullable<Fixture['response']['streamError']>): Fixture[] => [
  {
    match: {},
    response: { content: 'The weather in Paris is sunny and mild today.', chunkSize: 5, streamError },
  },
];

/** The AI SDK reports a mid-stream failure as an `error` part; the text so far arrives before it. */
async function aiSdkStream(model: () => LanguageModel) {
  const parts: string[] = [];
  let error: unknown;
  const result = streamText({ model: model(), prompt: 'Weather in Paris?', onError: () => undefined });
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') parts.push(part.text);
    if (part.type === 'error') error = part.error;
  }
  return { text: parts.join(''), error };
}

const sdkCases: Array<{ protocol: string; agent: Agent; check: (error: unknown) => void }> = [
  {
    protocol: 'openai.chat',
    agent: openaiChat,
    check: (e) => {
      expect(e).toBeInstanceOf(OpenAI.APIError);
      expect((e as InstanceType<typeof OpenAI.APIError>).error).toEqual({
        message: 'The server had an error while processing your request.',
        type: 'server_error',
        param: null,
        code: null,
      });
    },
  },
  {
    protocol: 'anthropic.messages',
    agent: anthropic,
    check: (e) => {
      expect(e).toBeInstanceOf(Anthropic.APIError);
      expect((e as InstanceType<typeof Anthropic.APIError>).error).toEqual({
        type: 'error',
        error: {
          type: 'overloaded_error',
          message: 'The server had an error while processing your request.',
        },
      });
    },
  },
  {
    protocol: 'gemini.generateContent',
    agent: gemini,
    check: (e) => {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).status).toBe(503);
      expect((e as Error).message).toContain('UNAVAILABLE');
    },
  },
  {
    protocol: 'bedrock.converse',
    agent: bedrock,
    check: (e) => {
      expect(e).toBeInstanceOf(ModelStreamErrorException);
      expect((e as Error).message).toBe('The server had an error while processing your request.');
    },
  },
];

describe('mid-stream errors (fixture streamError) through the official clients', () => {
  for (const { protocol, agent, check } of sdkCases)
    it(`${protocol}: the agent gets the provider's error after a 200 and part of the reply`, async () => {
      understudy.model.use(failing({ message: 'The server had an error while processing your request.' }));
      const run = await understudy.run(() => agent(true));
      expect(run).toHaveTerminalState('errored');
      check(run.error);
      const [call] = understudy.model.calls;
      expect(call.streamError).toEqual({ message: 'The server had an error while processing your request.' });
      // The evidence is the part that went out before the error event; the fixture's reply is `whole`.
      expect(call.cut).toMatchObject({ reason: 'stream_error' });
      expect(call.whole?.content).toBe('The weather in Paris is sunny and mild today.');
      expect('The weather in Paris is sunny and mild today.'.startsWith(call.response?.content ?? 'x')).toBe(
        true,
      );
      expect(call.response?.content).not.toBe('The weather in Paris is sunny and mild today.');
    });

  it('openai.responses: response.failed ends the stream with a failed response; the error event throws', async () => {
    const client = new OpenAI({ maxRetries: 0 });
    understudy.model.use(failing({ message: 'The server had an error while processing your request.' }));
    // openai-node hands a failed response back rather than throwing: an agent has to read its status.
    const failed = await client.responses
      .stream({ model: 'gpt-4o', input: 'Weather in Paris?' })
      .finalResponse();
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({
      code: 'server_error',
      message: 'The server had an error while processing your request.',
    });
    understudy.model.reset();
    understudy.model.use(
      failing({ message: 'Rate limit reached.', code: 'rate_limit_exceeded', event: 'error' }),
    );
    const error = await client.responses
      .stream({ model: 'gpt-4o', input: 'Weather in Paris?' })
      .finalResponse()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('Rate limit reached.');
  });

  it('a plain request gets the same failure as the provider error response', async () => {
    understudy.model.use(failing({ message: 'Overloaded', type: 'overloaded_error' }));
    const error = await new Anthropic({ maxRetries: 0 }).messages
      .create({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect(understudy.model.calls[0].error).toEqual({
      status: 529,
      type: 'overloaded_error',
      message: 'Overloaded',
    });
  });

  it('Bedrock: the exception named by the status', async () => {
    understudy.model.use(failing({ message: 'Slow down.', status: 429, afterChunks: 1 }));
    const run = await understudy.run(() => bedrock(true));
    expect(run.error).toBeInstanceOf(ThrottlingException);
  });
});

describe('mid-stream errors through the AI SDK', () => {
  for (const [protocol, model] of [
    ['openai.chat', aiSdkModels.openaiChat],
    ['openai.responses', aiSdkModels.openaiResponses],
    ['anthropic.messages', aiSdkModels.anthropic],
    ['gemini.generateContent', aiSdkModels.google],
    ['bedrock.converse', aiSdkModels.bedrock],
  ] as const)
    it(`${protocol}: the text before the failure, then an error part`, async () => {
      understudy.model.use(failing({ message: 'Model overloaded mid-stream.', afterChunks: 4 }));
      const { text, error } = await aiSdkStream(model);
      expect(error).toBeDefined();
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error ?? {}))).toContain(
        'Model overloaded mid-stream.',
      );
      expect('The weather in Paris is sunny and mild today.'.startsWith(text)).toBe(true);
      expect(text.length).toBeLessThan('The weather in Paris is sunny and mild today.'.length);
    });
});

describe('chaos streamErrorRate', () => {
  it('ends streamed replies with the error event, seeded, and answers plain requests with a 500', async () => {
    understudy.model.use([
      { match: {}, response: { content: 'Sunny in Paris today, all day long.', chunkSize: 4 } },
    ]);
    understudy.model.chaos({ streamErrorRate: 1, seed: 3 });
    const streamed = await understudy.run(() => openaiChat(true));
    expect(streamed).toHaveTerminalState('errored');
    expect(streamed.error).toBeInstanceOf(OpenAI.APIError);
    const plain = await new OpenAI({ maxRetries: 0 }).chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Paris?' }] })
      .catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(OpenAI.InternalServerError);
    expect(understudy.model.calls.map((c) => c.fault)).toEqual(['stream_error', 'stream_error']);
  });
});
