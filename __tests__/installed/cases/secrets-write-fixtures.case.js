// writeFixtures with credentials only rules recognise (query values, a presigned URL's
// signature, an appid), and with the base64 of a key in use (ANTHROPIC_API_KEY holds a gateway
// key of no known shape). PLANTED_* hold the values; the driver reads what was written.
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { expect, it } = require('./runner-globals.cjs');
const { script, writeFixtures } = require('jest-understudy');

const env = process.env;
const PRESIGNED = `https://reports.s3.amazonaws.com/q3.pdf?X-Amz-Date=20260101T000000Z&X-Amz-Signature=${env.PLANTED_SIGNATURE_VALUE}`;
const TOKEN_URL = `https://auth.example.test/oauth/token?client_id=reports-app&client_secret=${env.PLANTED_CLIENT_SECRET_VALUE}&password=${env.PLANTED_QUERY_PASSWORD_VALUE}&secret=${env.PLANTED_QUERY_SECRET_VALUE}`;
const out = (name) => join(__dirname, 'written', name);

it('writes the fixtures with the credentials blanked', () => {
  const file = writeFixtures(
    out('report.fixture.json'),
    script()
      .user('get the report')
      .callsTool('fetch', {
        url: PRESIGNED,
        weather: `https://api.weather.example.test/w?q=Oslo&appid=${env.PLANTED_APPID_VALUE}`,
      })
      .replies(`Fetched with ${TOKEN_URL}; max_tokens=64 kept.`),
  );
  const text = readFileSync(file, 'utf8');
  expect(text).toContain('X-Amz-Date=20260101T000000Z&X-Amz-Signature=[REDACTED]');
  expect(text).toContain('q=Oslo&appid=[REDACTED]');
  expect(text).toContain(
    'client_id=reports-app&client_secret=[REDACTED]&password=[REDACTED]&secret=[REDACTED]',
  );
  expect(text).toContain('max_tokens=64 kept.');
});

it('refuses to write the base64 of a key in use', () => {
  const encoded = Buffer.from(`svc:${env.ANTHROPIC_API_KEY}`).toString('base64');
  expect(() =>
    writeFixtures(out('leak.fixture.json'), script().user('hi').replies(`use Basic-less token ${encoded}`)),
  ).toThrow(
    /refusing to write .*leak\.fixture\.json: it contains the value of ANTHROPIC_API_KEY, base64-encoded/,
  );
  expect(existsSync(out('leak.fixture.json'))).toBe(false);
});
