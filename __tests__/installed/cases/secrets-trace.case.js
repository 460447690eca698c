// A failing test whose agent carries credentials that no list names, only rules: query values
// named client_secret / password / secret / appid, a presigned URL's X-Amz-Signature, a
// gateway key in x-portkey-api-key, a Basic header's password, and the base64 of a key in use
// (ANTHROPIC_API_KEY holds a gateway key of no known shape). The agent leaks each into what a
// trace records: request URLs, messages, tool arguments, its error. The driver reads the trace
// and the timeline; PLANTED_* hold the values it looks for.
const { execFile } = require('node:child_process');
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { script, understudy } = require('jest-understudy');

const env = process.env;
const GATEWAY = env.ANTHROPIC_API_KEY;
const b64 = (text) => Buffer.from(text).toString('base64');
const PRESIGNED = `https://reports.s3.amazonaws.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-Signature=${env.PLANTED_SIGNATURE_VALUE}`;
const TOKEN_URL = `https://auth.example.test/oauth/token?client_id=reports-app&client_secret=${env.PLANTED_CLIENT_SECRET_VALUE}&password=${env.PLANTED_QUERY_PASSWORD_VALUE}&secret=${env.PLANTED_QUERY_SECRET_VALUE}`;
const WEATHER_URL = `https://api.weather.example.test/data/2.5/weather?q=Oslo&appid=${env.PLANTED_APPID_VALUE}`;

const tools = [
  {
    type: 'function',
    function: {
      name: 'fetch_report',
      parameters: { type: 'object', properties: { url: { type: 'string' }, auth: { type: 'string' } } },
    },
  },
];

async function agent() {
  // A gateway key in its own header; the model call's URL carries OAuth credentials as query values.
  const client = new OpenAI({
    maxRetries: 0,
    defaultHeaders: { 'x-portkey-api-key': env.PLANTED_PORTKEY_VALUE },
    defaultQuery: {
      client_secret: env.PLANTED_CLIENT_SECRET_VALUE,
      password: env.PLANTED_QUERY_PASSWORD_VALUE,
      secret: env.PLANTED_QUERY_SECRET_VALUE,
      'api-version': '2024-10-21',
    },
  });
  const messages = [{ role: 'user', content: `summarise the Q3 report at ${PRESIGNED}` }];
  const first = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages,
    tools,
    max_tokens: 64,
  });
  const call = first.choices[0].message.tool_calls[0];
  // What the agent's own HTTP would have fetched: the presigned URL, and an API keyed by appid.
  const report = `Q3: revenue up 4% (from ${PRESIGNED})`;
  const weather = { temp: 18, source: WEATHER_URL };
  messages.push(first.choices[0].message, {
    role: 'tool',
    tool_call_id: call.id,
    content: JSON.stringify({
      report,
      weather,
      debug: `token url ${TOKEN_URL}; auth ${b64(`svc:${GATEWAY}`)}`,
    }),
  });
  // Its own fetch to the provider, with Basic credentials.
  const basic = b64(`svc-reports:${env.PLANTED_BASIC_PASSWORD_VALUE}`);
  await fetch('https://api.openai.com/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${basic}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages }),
  });
  throw new Error(
    `upload refused for svc-reports:${env.PLANTED_BASIC_PASSWORD_VALUE} via gateway ${env.PLANTED_PORTKEY_VALUE} (key ${b64(GATEWAY)})`,
  );
}

it(`leaks nothing from ${TOKEN_URL}`, async () => {
  understudy.model.use(
    script()
      .user('summarise the Q3 report')
      .callsTool('fetch_report', { url: PRESIGNED, auth: `Basic ${b64(`svc:${GATEWAY}`)}` })
      .replies(`Revenue is up 4% (checked with ${WEATHER_URL}).`),
  );
  const run = await understudy.run(agent);
  expect(run.error).toBeDefined();
  expect(run).toHaveFinalMessage('revenue is down');
});

// A child process calls the model over the served port with a gateway key and Basic credentials
// of its own; the agent then leaks both into its error.
function child(url) {
  const script = `
    const basic = Buffer.from('svc-child:' + process.env.PLANTED_SERVED_BASIC_VALUE).toString('base64');
    fetch(process.argv[1], {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-portkey-api-key': process.env.PLANTED_SERVED_GATEWAY_VALUE,
        authorization: 'Basic ' + basic,
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello from the child' }] }),
    }).then((r) => r.json()).then((j) => process.stdout.write(j.choices[0].message.content));
  `;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['-e', script, url], (error, stdout, stderr) =>
      error ? reject(new Error(stderr)) : resolve(stdout),
    ),
  );
}

it('leaks nothing a child sent over the served port', async () => {
  understudy.model.use(script().user('hello from the child').replies('Hello, child.'));
  const served = await understudy.serve();
  const run = await understudy.run(async () => {
    const answer = await child(`${served.urls.openai}/chat/completions`);
    throw new Error(
      `${answer} then refused svc-child:${env.PLANTED_SERVED_BASIC_VALUE} at ${env.PLANTED_SERVED_GATEWAY_VALUE}`,
    );
  });
  expect(run.error.message).toContain('Hello, child. then refused');
  expect(run).toHaveFinalMessage('Goodbye');
});
