// Recorded against a stand-in provider (PLANTED_UPSTREAM, an OpenAI base URL): the agent's
// prompt and tool results carry credentials only rules recognise (a presigned URL, OAuth query
// values, an appid) and ones only its requests carry (a gateway key in x-portkey-api-key, a
// Basic password), and the base64 of OPENAI_API_KEY. The cassette must hold none of them.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

const env = process.env;
const b64 = (text) => Buffer.from(text).toString('base64');
const PRESIGNED = `https://reports.s3.amazonaws.com/q3.pdf?X-Amz-Date=20260101T000000Z&X-Amz-Signature=${env.PLANTED_SIGNATURE_VALUE}`;
const TOKEN_URL = `https://auth.example.test/oauth/token?client_secret=${env.PLANTED_CLIENT_SECRET_VALUE}&password=${env.PLANTED_QUERY_PASSWORD_VALUE}&secret=${env.PLANTED_QUERY_SECRET_VALUE}&appid=${env.PLANTED_APPID_VALUE}`;

const tools = [
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      description: 'Order status',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
  },
];

async function agent(question) {
  const client = new OpenAI({
    baseURL: `${env.PLANTED_UPSTREAM}/openai/v1`,
    maxRetries: 0,
    defaultHeaders: {
      'x-portkey-api-key': env.PLANTED_PORTKEY_VALUE,
      'proxy-authorization': `Basic ${b64(`svc-reports:${env.PLANTED_BASIC_PASSWORD_VALUE}`)}`,
    },
  });
  const messages = [{ role: 'user', content: question }];
  for (let step = 0; step < 4; step++) {
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    const message = reply.choices[0].message;
    if (!message.tool_calls?.length) return message.content;
    messages.push(message);
    for (const call of message.tool_calls)
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify({
          status: 'shipped',
          invoice: PRESIGNED,
          note: `gateway ${env.PLANTED_PORTKEY_VALUE}, login svc-reports:${env.PLANTED_BASIC_PASSWORD_VALUE}, key ${b64(`k:${env.OPENAI_API_KEY}`)}, token ${TOKEN_URL}`,
        }),
      });
  }
  throw new Error('the agent did not finish');
}

it('looks the report up and answers', async () => {
  const run = await understudy.run(() => agent(`where is order A-1001? see ${TOKEN_URL}`));
  expect(run.error).toBeUndefined();
  expect(run.toolsCalled).toEqual(['lookup_order']);
  expect(run.output).toContain('shipped');
});
