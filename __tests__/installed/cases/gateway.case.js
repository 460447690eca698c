// One gateway host serving two providers by path (a LiteLLM-style proxy): the driver lists
// http://gateway.invalid/v1 for openai and http://gateway.invalid for anthropic, so the OpenAI
// SDK's /v1/chat/completions and the Anthropic SDK's /v1/messages share one origin. Each request
// goes to the provider that serves its path; a path neither serves fails, naming what each does.
// The driver runs this in a network namespace with only loopback.
const { expect, it } = require('./runner-globals.cjs');
const Anthropic = require('@anthropic-ai/sdk');
const OpenAI = require('openai');
const { script, understudy } = require('jest-understudy');

const GATEWAY = 'http://gateway.invalid';

it('routes /v1/chat/completions to openai and /v1/messages to anthropic under one base URL', async () => {
  understudy.model.use(script().user('chat?').replies('from chat'));
  understudy.model.use(script().user('messages?').replies('from messages'));
  const openai = new OpenAI({ baseURL: `${GATEWAY}/v1`, apiKey: 'sk-test' });
  const anthropic = new Anthropic({ baseURL: GATEWAY, apiKey: 'sk-ant-test' });
  const run = await understudy.run(async () => {
    const chat = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'chat?' }],
    });
    const message = await anthropic.messages.create({
      model: 'claude-gateway-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'messages?' }],
    });
    return [chat.choices[0].message.content, message.content[0].text];
  });
  expect(run.output).toEqual(['from chat', 'from messages']);
  expect(run.modelCalls.map((call) => [call.provider, call.protocol, call.url])).toEqual([
    ['openai', 'openai.chat', `${GATEWAY}/v1/chat/completions`],
    ['anthropic', 'anthropic.messages', `${GATEWAY}/v1/messages`],
  ]);
});

// Must fail: no provider listed at the gateway serves this path.
it('a path neither provider serves: POST /v1/audio/speech', async () => {
  const response = await fetch(`${GATEWAY}/v1/audio/speech`, { method: 'POST', body: '{}' });
  expect(response.status).toBe(404);
});
