/**
 * Each stream dialect through at least two real clients: the agent's parser meets the shape
 * a real provider or gateway sends, and the run must come out the same as on the canonical
 * stream (same calls with the same arguments, same answer).
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { generateText, streamText } from 'ai';
import { type DialectName, understudy } from 'jest-understudy';
import {
  type Agent,
  aiSdk,
  aiSdkModels,
  anthropic,
  bedrock,
  expectParisRun,
  gemini,
  langchainInvalid,
  langchainOpenAI,
  openaiChat,
  openaiResponses,
  parallelFixtures,
} from '../../../../support/agents/agents';

const cases: Array<{
  dialect: DialectName;
  protocol: string;
  clients: Record<string, Agent>;
  plain?: boolean;
}> = [
  {
    dialect: 'empty-choices',
    protocol: 'openai.chat',
    clients: { openai: openaiChat, 'ai-sdk': aiSdk(aiSdkModels.openaiChat), langchain: langchainOpenAI },
  },
  {
    dialect: 'keep-alive',
    protocol: 'openai.chat',
    clients: { openai: openaiChat, 'ai-sdk openai-compatible': aiSdk(aiSdkModels.compatible) },
  },
  {
    dialect: 'keep-alive',
    protocol: 'anthropic.messages',
    clients: { anthropic, 'ai-sdk': aiSdk(aiSdkModels.anthropic) },
  },
  {
    dialect: 'interleaved-tool-calls',
    protocol: 'openai.chat',
    clients: { openai: openaiChat, 'ai-sdk': aiSdk(aiSdkModels.openaiChat), langchain: langchainOpenAI },
  },
  {
    dialect: 'whole-tool-calls',
    protocol: 'openai.chat',
    clients: {
      openai: openaiChat,
      'ai-sdk openai-compatible': aiSdk(aiSdkModels.compatible),
      langchain: langchainOpenAI,
    },
  },
  {
    dialect: 'empty-arguments',
    protocol: 'openai.chat',
    plain: true,
    clients: { openai: openaiChat, 'ai-sdk': aiSdk(aiSdkModels.openaiChat) },
  },
  // LangChain reads a plain reply's `""` wrong (see below); streamed, it reads it.
  { dialect: 'empty-arguments', protocol: 'openai.chat', clients: { langchain: langchainOpenAI } },
  {
    dialect: 'empty-arguments',
    protocol: 'openai.responses',
    plain: true,
    clients: { openai: openaiResponses, 'ai-sdk': aiSdk(aiSdkModels.openaiResponses) },
  },
  {
    dialect: 'empty-arguments',
    protocol: 'anthropic.messages',
    clients: { anthropic, 'ai-sdk': aiSdk(aiSdkModels.anthropic) },
  },
  {
    dialect: 'empty-arguments',
    protocol: 'bedrock.converse',
    clients: { 'aws-sdk': bedrock, 'ai-sdk': aiSdk(aiSdkModels.bedrock) },
  },
  {
    dialect: 'whole-tool-input',
    protocol: 'anthropic.messages',
    clients: { anthropic, 'ai-sdk': aiSdk(aiSdkModels.anthropic) },
  },
  {
    dialect: 'batched-function-calls',
    protocol: 'gemini.generateContent',
    clients: { '@google/genai': gemini, 'ai-sdk': aiSdk(aiSdkModels.google) },
  },
  {
    dialect: 'reasoning-deltas',
    protocol: 'openai.chat',
    plain: true,
    clients: {
      openai: openaiChat,
      'ai-sdk openai-compatible': aiSdk(aiSdkModels.compatible),
      langchain: langchainOpenAI,
    },
  },
];

describe('stream dialects through real clients', () => {
  for (const { dialect, protocol, clients, plain } of cases)
    for (const [client, agent] of Object.entries(clients))
      for (const stream of plain ? [true, false] : [true])
        it(`${dialect} on ${protocol}: ${client} (${stream ? 'streamed' : 'plain'})`, async () => {
          understudy.model.use(parallelFixtures);
          understudy.model.dialect([dialect]);
          const run = await understudy.run(() => agent(stream));
          expectParisRun(run);
          const calls = understudy.model.calls;
          expect(calls.map((c) => c.protocol)).toEqual([protocol, protocol]);
          // The first reply (text and two calls) always goes out in the dialect; the answer where it changes anything.
          expect(calls[0].dialect).toBe(dialect);
          expect(calls.map((c) => c.contract)).toEqual([undefined, undefined]);
        });

  for (const stream of [false, true])
    it(`reasoning-deltas: an OpenAI-compatible client reads the reasoning apart from the answer (${stream ? 'streamed' : 'plain'})`, async () => {
      understudy.model.use([
        { match: {}, response: { reasoning: 'Paris is in France.', content: 'It is sunny.' } },
      ]);
      understudy.model.dialect(['reasoning-deltas']);
      const model = aiSdkModels.compatible();
      const result = stream
        ? await (async () => {
            const r = streamText({ model, prompt: 'Weather in Paris?' });
            return { text: await r.text, reasoningText: await r.reasoningText };
          })()
        : await generateText({ model, prompt: 'Weather in Paris?' });
      expect(result.text).toBe('It is sunny.');
      expect(result.reasoningText).toBe('Paris is in France.');
    });

  it('empty-arguments finds what the canonical stream hides: LangChain.js drops a zero-argument call sent as "" (plain)', async () => {
    understudy.model.use(parallelFixtures);
    langchainInvalid.length = 0;
    // The canonical reply sends "{}": LangChain runs both tools.
    const canonical = await understudy.run(() => langchainOpenAI(false));
    expect(canonical.toolCalls.map((c) => [c.name, c.answered])).toEqual([
      ['get_weather', true],
      ['get_time', true],
    ]);
    understudy.model.reset();
    understudy.model.use(parallelFixtures);
    understudy.model.dialect(['empty-arguments']);
    const run = await understudy.run(() => langchainOpenAI(false));
    // As OpenAI answers for a strict tool without parameters: the agent never runs get_time.
    expect(run.toolCalls.map((c) => [c.name, c.answered])).toEqual([
      ['get_weather', true],
      ['get_time', false],
    ]);
    expect(langchainInvalid).toEqual([expect.objectContaining({ name: 'get_time', args: '' })]);
  });
});
