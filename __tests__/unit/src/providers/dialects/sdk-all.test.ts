/**
 * @jest-environment-options {"understudy": {"dialect": "all"}}
 * @understudy-fixtures ./fixtures/dialects.fixture.yaml
 * @jest-environment ./environment/jest/index.ts
 */

/**
 * One fixture file under `dialect: 'all'`: every request takes the next dialect that fits its
 * reply, so running the same agent a few times walks it through every shape its protocol has,
 * and each run must come out as on the canonical stream.
 */
import { describe, expect, it } from '@jest/globals';
import { dialectsFor, understudy } from 'jest-understudy';
import {
  type Agent,
  aiSdk,
  aiSdkModels,
  anthropic,
  bedrock,
  expectParisRun,
  gemini,
  openaiChat,
  openaiResponses,
} from '../../../../support/agents/agents';

const clients: Array<[string, string, Agent]> = [
  ['openai (Chat Completions)', 'openai.chat', openaiChat],
  ['openai (Responses)', 'openai.responses', openaiResponses],
  ['@anthropic-ai/sdk', 'anthropic.messages', anthropic],
  ['AI SDK @ai-sdk/openai chat', 'openai.chat', aiSdk(aiSdkModels.openaiChat)],
  ['AI SDK @ai-sdk/anthropic', 'anthropic.messages', aiSdk(aiSdkModels.anthropic)],
  ['AI SDK @ai-sdk/google', 'gemini.generateContent', aiSdk(aiSdkModels.google)],
  ['@google/genai', 'gemini.generateContent', gemini],
  ['@aws-sdk/client-bedrock-runtime', 'bedrock.converse', bedrock],
];

describe("one fixture file under dialect: 'all'", () => {
  for (const [label, protocol, agent] of clients)
    it(`${label}: the same run in every dialect of ${protocol}`, async () => {
      const dialects = dialectsFor(protocol);
      for (let i = 0; i < dialects.length; i++) {
        const run = await understudy.run(() => agent(true));
        expectParisRun(run);
      }
      const calls = understudy.model.calls;
      expect(new Set(calls.map((c) => c.protocol))).toEqual(new Set([protocol]));
      expect(calls.map((c) => c.contract).filter(Boolean)).toEqual([]);
      // The replies with calls took every dialect of the protocol, each once.
      const withCalls = calls.filter((c) => c.response?.toolCalls.length);
      expect(withCalls.map((c) => c.dialect).sort()).toEqual([...dialects].sort());
    });
});
