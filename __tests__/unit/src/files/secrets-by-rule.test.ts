/**
 * Credentials recognised by rule, not by list: names (of fields, headers and query parameters)
 * that denote a key, token, secret, password, signature, credential or session however they
 * are spelled; Basic credentials decoded; the keys in use in every encoded form. And what must
 * stay: token counts, reasoning signatures, idempotency keys, code that only refers to a key.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  credentialsOf,
  findSecretInUse,
  noteCredentials,
  SECRETS_REGISTRY,
  secretsInUse,
} from '../../../../src/files/secrets';
import { isCredentialName, REDACTED, scrubSecrets, scrubText } from '../../../../src/redact';

afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[SECRETS_REGISTRY];
});

describe('names that denote a credential', () => {
  it.each([
    // Everywhere.
    ['x-portkey-api-key', 'field'],
    ['portkeyApiKey', 'field'],
    ['client_secret', 'field'],
    ['clientSecret', 'field'],
    ['DB_PASSWORD', 'field'],
    ['password2', 'field'],
    ['access_token', 'field'],
    ['X-Auth-Token', 'field'],
    ['refreshToken', 'field'],
    ['Proxy-Authorization', 'field'],
    ['set-cookie', 'field'],
    ['AWS_SECRET_ACCESS_KEY', 'field'],
    ['Ocp-Apim-Subscription-Key', 'field'],
    ['AccountKey', 'header'],
    ['db_pwd', 'field'],
    // Headers: signatures, sessions, any `…-key` but known public ones.
    ['X-Amz-Signature', 'header'],
    ['X-Hub-Signature-256', 'header'],
    ['x-session-id', 'header'],
    ['x-functions-key', 'header'],
    ['Key', 'header'],
    // Query parameters: also `key`, `appid`, `app_id`, a key id.
    ['key', 'query'],
    ['appid', 'query'],
    ['app_id', 'query'],
    ['sig', 'query'],
    ['X-Amz-Credential', 'query'],
    ['AWSAccessKeyId', 'query'],
    ['sessionId', 'query'],
    ['PHPSESSID', 'query'],
    ['JSESSIONID', 'query'],
  ] as const)('%s (%s)', (name, where) => {
    expect(isCredentialName(name, where)).toBe(true);
  });

  it.each([
    ['max_tokens', 'query'],
    ['input_tokens', 'field'],
    ['promptTokenCount', 'field'],
    ['cache_creation_input_tokens', 'field'],
    ['token_type', 'field'],
    ['tokenizer', 'field'],
    ['page_token', 'query'],
    ['nextPageToken', 'field'],
    ['signature', 'field'],
    ['thoughtSignature', 'field'],
    ['idempotencyKey', 'field'],
    ['Idempotency-Key', 'header'],
    ['Sec-WebSocket-Key', 'header'],
    ['key', 'field'],
    ['publicKey', 'field'],
    ['sessionId', 'field'],
    ['pwd', 'field'],
    ['appid', 'header'],
    ['alt', 'query'],
    ['api-version', 'query'],
    ['x-stainless-retry-count', 'header'],
    ['openai-organization', 'header'],
    ['author', 'field'],
  ] as const)('not %s (%s)', (name, where) => {
    expect(isCredentialName(name, where)).toBe(false);
  });
});

describe('scrubbing text by rule', () => {
  it.each([
    [
      'presigned S3 URL',
      'https://b.s3.amazonaws.com/f.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024',
      'https://b.s3.amazonaws.com/f.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[REDACTED]&X-Amz-Date=20260101T000000Z&X-Amz-Signature=[REDACTED]',
    ],
    [
      'OAuth client secret and password',
      'https://auth.example.test/token?client_id=app&client_secret=s3cr3t-VALUE&password=hunter22&secret=abc123xyz',
      'https://auth.example.test/token?client_id=app&client_secret=[REDACTED]&password=[REDACTED]&secret=[REDACTED]',
    ],
    [
      'appid, session and signature',
      'GET /data/2.5/weather?q=Oslo&appid=9f8e7d6c5b4a&sessionId=S-998877&sig=abcd1234',
      'GET /data/2.5/weather?q=Oslo&appid=[REDACTED]&sessionId=[REDACTED]&sig=[REDACTED]',
    ],
    [
      'a URL escaped in HTML',
      '<a href="https://x.test/?a=1&amp;client_secret=s3cr3t-VALUE&amp;b=2">',
      '<a href="https://x.test/?a=1&amp;client_secret=[REDACTED]&amp;b=2">',
    ],
    [
      'a gateway header written as text',
      'request failed; headers: { "x-portkey-api-key": "pk-live-QWERTY", accept: "json" }',
      'request failed; headers: { "x-portkey-api-key": "[REDACTED]", accept: "json" }',
    ],
    ['a password after a colon', 'db_password: correct-horse', 'db_password: [REDACTED]'],
    ['a Basic header', 'Authorization: Basic dXNlcjpodW50ZXIy', 'Authorization: [REDACTED]'],
  ])('%s', (_, text, scrubbed) => {
    expect(scrubText(text)).toBe(scrubbed);
  });

  it('leaves token counts, ordinary parameters and code that only refers to a key', () => {
    for (const text of [
      'https://api.example.test/v1/chat?api-version=2024-10-21&alt=sse&max_tokens=100',
      '{"input_tokens": 12, "max_tokens": 512, "promptTokenCount": 3}',
      'const token = await getToken();',
      'const client = new OpenAI({ apiKey: options.apiKey });',
      'password: process.env.DB_PASSWORD',
      'function issue(token: string, secrets: readonly string[]) {}',
      'apiKey: OPENAI_KEY_VAR,',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: code that refers to a variable
      'token = `r${n}`',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable
      'export DB_PASSWORD=${DB_PASSWORD}',
      '"signature": "EqQBCkgIBhABGAIiQNb3",',
    ])
      expect(scrubText(text)).toBe(text);
  });
});

describe('scrubbing JSON text', () => {
  const values = fc.constantFrom(
    'https://a.test/f?X-Amz-Signature=abc123&b=1',
    'password=hunter22',
    'x-api-key: k-0123456789',
    'Authorization: Basic dXNlcjpwYXNz',
    '?client_secret=s3cr3t',
    'plain text',
  );
  const objects = fc.dictionary(
    fc.constantFrom('password', 'url', 'note', 'x-portkey-api-key', 'token'),
    values,
  );

  it('keeps JSON text (once or twice encoded) well-formed, the value blanked and what follows it whole', () => {
    fc.assert(
      fc.property(objects, (object) => {
        const once = scrubText(JSON.stringify(object));
        expect(() => JSON.parse(once)).not.toThrow();
        const twice = scrubText(JSON.stringify({ content: JSON.stringify(object) }));
        expect(() => JSON.parse(JSON.parse(twice).content)).not.toThrow();
        for (const secret of ['abc123', 'hunter22', 'k-0123456789', 'dXNlcjpwYXNz', 's3cr3t'])
          expect(`${once}${twice}`).not.toContain(secret);
      }),
      { numRuns: 300 },
    );
  });
});

describe('scrubbing data by rule', () => {
  it('blanks credential-named fields, judges header objects as headers, keeps what is not a credential', () => {
    const out = scrubSecrets({
      request: {
        headers: {
          'x-portkey-api-key': 'pk-1',
          'x-session-id': 'S-1',
          'Idempotency-Key': 'i-1',
          accept: 'json',
        },
      },
      config: {
        clientSecret: 'c-1',
        db_password: 'p-1',
        apiKey: 'k-1',
        publicKey: 'pub-1',
        sessionId: 's-1',
      },
      usage: { promptTokenCount: 3, cache_creation_input_tokens: 4, max_tokens: 10 },
      thinking: { type: 'thinking', thinking: 'hmm', signature: 'EqQB' },
      part: { text: 'x', thoughtSignature: 'CiQB' },
      logprobs: [{ token: 'Hello', logprob: -0.1, top_logprobs: [{ token: 'Hi', logprob: -2 }] }],
      attributes: [{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } }],
      idempotencyKey: 'save:1',
    });
    expect(out).toEqual({
      request: {
        headers: {
          'x-portkey-api-key': REDACTED,
          'x-session-id': REDACTED,
          'Idempotency-Key': 'i-1',
          accept: 'json',
        },
      },
      config: {
        clientSecret: REDACTED,
        db_password: REDACTED,
        apiKey: REDACTED,
        publicKey: 'pub-1',
        sessionId: 's-1',
      },
      usage: { promptTokenCount: 3, cache_creation_input_tokens: 4, max_tokens: 10 },
      thinking: { type: 'thinking', thinking: 'hmm', signature: 'EqQB' },
      part: { text: 'x', thoughtSignature: 'CiQB' },
      logprobs: [{ token: 'Hello', logprob: -0.1, top_logprobs: [{ token: 'Hi', logprob: -2 }] }],
      attributes: [{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } }],
      idempotencyKey: 'save:1',
    });
  });
});

describe('a key in use, in every form', () => {
  const KEY = 'corp-gateway-secret-XYZ987';
  const b64 = (text: string) => Buffer.from(text).toString('base64');

  it.each([
    ['base64', b64(KEY)],
    ['base64 after a user name (Basic)', b64(`svc:${KEY}`)],
    ['base64 after one byte', b64(`x${KEY}`)],
    ['base64 after two bytes', b64(`xy${KEY}`)],
    ['URL-safe base64', Buffer.from(`ab?${KEY}>`).toString('base64url')],
    ['URL-encoded base64', encodeURIComponent(b64(`??${KEY}`))],
    ['hex', Buffer.from(KEY).toString('hex')],
    ['upper-case hex in a longer string', Buffer.from(`id=${KEY};`).toString('hex').toUpperCase()],
  ])('%s', (_, encoded) => {
    const text = `header ${encoded}, then more`;
    expect(scrubText(text, { values: [KEY] })).toBe(`header ${REDACTED}, then more`);
    expect(findSecretInUse(text, { GATEWAY_API_KEY: KEY })).toMatch(
      /^the value of GATEWAY_API_KEY, (base64|hex)-encoded$/,
    );
  });

  it('never leaves the base64 or hex of a key in use, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (before, after) => {
        for (const encoded of [
          b64(`${before}${KEY}${after}`),
          Buffer.from(`${before}${KEY}${after}`).toString('base64url'),
          Buffer.from(`${before}${KEY}${after}`).toString('hex'),
        ]) {
          const scrubbed = scrubText(`<${encoded}>`, { values: [KEY] });
          expect(scrubbed).toBe(`<${REDACTED}>`);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the credentials a request carries', () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it('takes every header named like a credential, Basic credentials decoded', () => {
    const basic = Buffer.from('svc-user:pa55-w0rd-long').toString('base64');
    expect(
      credentialsOf(
        headers({
          authorization: `Basic ${basic}`,
          'x-portkey-api-key': 'pk-portkey-0123',
          'idempotency-key': 'stainless-node-retry-1',
          'content-type': 'application/json',
          cookie: 'theme=dark; session=sess-abcdef123',
        }),
        'https://api.openai.com/v1/chat/completions',
      ),
    ).toEqual([
      basic,
      'svc-user:pa55-w0rd-long',
      'pa55-w0rd-long',
      'theme=dark; session=sess-abcdef123',
      'dark',
      'sess-abcdef123',
      'pk-portkey-0123',
    ]);
  });

  it('takes query parameters named like a credential, and the access key id of X-Amz-Credential', () => {
    expect(
      credentialsOf(
        headers({}),
        'https://b.s3.amazonaws.com/f?X-Amz-Credential=AKIDEXAMPLE0%2F20260101%2Fus-east-1&X-Amz-Signature=fe5f80f7&client_secret=cs-123456789&alt=sse&appid=owm-key-42',
      ),
    ).toEqual(['AKIDEXAMPLE0/20260101/us-east-1', 'AKIDEXAMPLE0', 'fe5f80f7', 'cs-123456789', 'owm-key-42']);
  });

  it('a SigV4 signature made with the placeholder key is no secret; a bearer token is taken without its scheme', () => {
    expect(
      credentialsOf(
        headers({
          authorization:
            'AWS4-HMAC-SHA256 Credential=AKIAUNDERSTUDYREPLAY0/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=abcdef0123',
        }),
        'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse',
      ),
    ).toEqual(['AKIAUNDERSTUDYREPLAY0']);
    expect(credentialsOf(headers({ authorization: 'Bearer gw-token-0123456' }), 'https://x.test/')).toEqual([
      'gw-token-0123456',
    ]);
  });

  it('notes them as keys in use, so they are blanked in every file written', () => {
    noteCredentials(
      headers({ 'x-portkey-api-key': 'pk-portkey-0123', accept: 'json' }),
      'https://x.test/?appid=owm-key-42',
    );
    expect(secretsInUse([], {}).sort()).toEqual(['owm-key-42', 'pk-portkey-0123']);
  });
});
