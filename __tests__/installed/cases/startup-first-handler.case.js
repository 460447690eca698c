// The test file's first request is node:http to a host only the user's own msw handler answers
// (understudy.http.use): the handler answers it, and the same request without the handler fails.
const { expect, it } = require('./runner-globals.cjs');
const http = require('node:http');
const { http: mswHttp, HttpResponse } = require('msw');
const { understudy } = require('jest-understudy');

const URL = 'http://first-handler.invalid/now';

const get = () =>
  new Promise((resolve) => {
    const request = http.get(URL, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode, body }));
    });
    request.on('error', () => resolve('failed'));
  });

it("the first request of the file, node:http, is answered by the user's msw handler", async () => {
  understudy.http.use(mswHttp.get(URL, () => HttpResponse.json({ temp: 21 })));
  expect(await get()).toEqual({ status: 200, body: '{"temp":21}' });
});

it('must fail: the same request once the handler is reset', async () => {
  expect(await get()).toBe('failed');
});
