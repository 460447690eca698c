/**
 * @jest-environment-options {"understudy": {"providers": {"ollama": true, "litellm": {"baseURL": "http://litellm.invalid:4000"}, "azure": {"baseURL": "https://llm.corp.invalid/openai"}}}}
 * @jest-environment ./environment/jest/index.ts
 */

/**
 * Provider presets: Azure OpenAI's deployment and v1 paths, Vertex AI's Gemini paths and
 * OpenAI-compatible gateways, served by the same codecs (fixtures, contracts and dialects
 * apply unchanged), through the clients users point at them.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from '@jest/globals';
import { generateText } from 'ai';
import { OAuth2Client } from 'google-auth-library';
import { type Fixture, understudy } from 'jest-understudy';
import OpenAI, { AzureOpenAI } from 'openai';

const hello: Fixture[] = [{ match: { userMessage: 'Hello' }, response: { content: 'Hi there.' } }];
const messages = [{ role: 'user' as const, content: 'Hello' }];

describe('Azure OpenAI', () => {
  it('serves the deployment paths of any resource, the deployment standing for the model, api-version ignored', async () => {
    understudy.model.use(hello);
    const client = new AzureOpenAI({
      endpoint: 'https://contoso-eu.openai.azure.com',
      apiVersion: '2024-10-21',
      deployment: 'gpt-4o-prod',
      maxRetries: 0,
    });
    const c = await client.chat.completions.create({ model: 'ignored-by-azure', messages });
    expect(c.choices[0].message.content).toBe('Hi there.');
    const [call] = understudy.model.calls;
    expect(call.url).toBe(
      'https://contoso-eu.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21',
    );
    expect(call).toMatchObject({ provider: 'openai', protocol: 'openai.chat' });
    // The request body names a model; the conversation keeps what the body says.
    expect(call.conversation.model).toBe('ignored-by-azure');
  });

  it('takes the model from the deployment when the body has none (a raw request)', async () => {
    understudy.model.use([{ match: { model: 'gpt-4o-mini-dep' }, response: { content: 'From the path.' } }]);
    const response = await fetch(
      'https://contoso.openai.azure.com/openai/deployments/gpt-4o-mini-dep/chat/completions?api-version=2024-10-21',
      { method: 'POST', headers: { 'api-key': 'x' }, body: JSON.stringify({ messages }) },
    );
    expect((await response.json()).choices[0].message.content).toBe('From the path.');
  });

  it('streams through the Azure client, and serves the Responses API and embeddings', async () => {
    understudy.model.use([...hello, { match: { inputText: 'doc' }, response: { embedding: [0.5, 0.5] } }]);
    const client = new AzureOpenAI({
      endpoint: 'https://contoso.openai.azure.com',
      apiVersion: '2025-04-01-preview',
      maxRetries: 0,
    });
    const streamed = await client.chat.completions
      .stream({ model: 'gpt-4o', messages })
      .finalChatCompletion();
    expect(streamed.choices[0].message.content).toBe('Hi there.');
    const response = await client.responses.create({ model: 'gpt-4o', input: 'Hello' });
    expect(response.output_text).toBe('Hi there.');
    const e = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'doc',
      encoding_format: 'float',
    });
    expect(e.data[0].embedding).toEqual([0.5, 0.5]);
    expect(understudy.model.embeddings[0].url).toBe(
      'https://contoso.openai.azure.com/openai/deployments/text-embedding-3-small/embeddings?api-version=2025-04-01-preview',
    );
  });

  it('serves the v1 API paths (/openai/v1/…) through the plain OpenAI client, and a custom domain from the option', async () => {
    understudy.model.use(hello);
    const v1 = new OpenAI({
      baseURL: 'https://contoso.openai.azure.com/openai/v1/',
      apiKey: 'x',
      maxRetries: 0,
    });
    expect((await v1.chat.completions.create({ model: 'gpt-4o', messages })).choices[0].message.content).toBe(
      'Hi there.',
    );
    const custom = new AzureOpenAI({
      baseURL: 'https://llm.corp.invalid/openai',
      apiVersion: '2024-10-21',
      deployment: 'd',
      maxRetries: 0,
    });
    expect(
      (await custom.chat.completions.create({ model: 'gpt-4o', messages })).choices[0].message.content,
    ).toBe('Hi there.');
    expect(understudy.model.calls.map((c) => c.protocol)).toEqual(['openai.chat', 'openai.chat']);
  });
});

describe('Vertex AI', () => {
  /** An auth client that needs no network: replay tests never fetch a Google token. */
  const auth = () => {
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: 'understudy-replay', expiry_date: Date.now() + 3_600_000 });
    return { authClient };
  };

  for (const stream of [false, true])
    it(`serves @google/genai with vertexai: true, project and location (${stream ? 'streamed' : 'plain'})`, async () => {
      understudy.model.use(hello);
      const ai = new GoogleGenAI({
        vertexai: true,
        project: 'acme-prod',
        location: 'europe-west4',
        googleAuthOptions: auth(),
      });
      let text = '';
      if (stream)
        for await (const chunk of await ai.models.generateContentStream({
          model: 'gemini-2.5-flash',
          contents: 'Hello',
        }))
          text += chunk.text ?? '';
      else
        text = (await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hello' })).text ?? '';
      expect(text).toBe('Hi there.');
      const [call] = understudy.model.calls;
      expect(call.url).toContain(
        `https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/acme-prod/locations/europe-west4/publishers/google/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      );
      expect(call).toMatchObject({ provider: 'gemini', protocol: 'gemini.generateContent' });
      expect(call.conversation.model).toBe('gemini-2.5-flash');
    });

  it('serves the global endpoint and express mode (an API key, no project)', async () => {
    understudy.model.use(hello);
    const global = new GoogleGenAI({
      vertexai: true,
      project: 'acme',
      location: 'global',
      googleAuthOptions: auth(),
    });
    expect((await global.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hello' })).text).toBe(
      'Hi there.',
    );
    const express = new GoogleGenAI({ vertexai: true, apiKey: 'x' });
    expect(
      (await express.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hello' })).text,
    ).toBe('Hi there.');
    expect(understudy.model.calls.map((c) => new URL(c.url).host)).toEqual([
      'aiplatform.googleapis.com',
      'aiplatform.googleapis.com',
    ]);
  });
});

describe('OpenAI-compatible gateways', () => {
  it('OpenRouter at https://openrouter.ai/api/v1, always served', async () => {
    understudy.model.use(hello);
    const client = new OpenAI({ baseURL: 'https://openrouter.ai/api/v1', apiKey: 'x', maxRetries: 0 });
    const c = await client.chat.completions.create({ model: 'anthropic/claude-sonnet-4.5', messages });
    expect(c.choices[0].message.content).toBe('Hi there.');
    expect(understudy.model.calls[0].conversation.model).toBe('anthropic/claude-sonnet-4.5');
  });

  it('Ollama /v1 when the option turns it on, at localhost:11434', async () => {
    understudy.model.use(hello);
    const client = new OpenAI({ baseURL: 'http://localhost:11434/v1', apiKey: 'ollama', maxRetries: 0 });
    const streamed = await client.chat.completions
      .stream({ model: 'llama3.2', messages })
      .finalChatCompletion();
    expect(streamed.choices[0].message.content).toBe('Hi there.');
    const ai = createOpenAICompatible({ name: 'ollama', baseURL: 'http://127.0.0.1:11434/v1' });
    expect((await generateText({ model: ai('llama3.2'), prompt: 'Hello' })).text).toBe('Hi there.');
  });

  it('LiteLLM at the option’s address, with or without /v1', async () => {
    understudy.model.use(hello);
    for (const baseURL of ['http://litellm.invalid:4000', 'http://litellm.invalid:4000/v1']) {
      const client = new OpenAI({ baseURL, apiKey: 'sk-litellm', maxRetries: 0 });
      const c = await client.chat.completions.create({ model: 'claude-sonnet', messages });
      expect(c.choices[0].message.content).toBe('Hi there.');
    }
    expect(understudy.model.calls.map((c) => c.url)).toEqual([
      'http://litellm.invalid:4000/chat/completions',
      'http://litellm.invalid:4000/v1/chat/completions',
    ]);
  });
});
