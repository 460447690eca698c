/**
 * The HTTP transport: operations with an HTTP route are served at their package's base URL,
 * method and path, through the environment's fetch and through msw (node:http / https).
 *
 * @understudy-world ../../../../../fixtures/worlds/records.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { request as httpsRequest } from 'node:https';
import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';

const BASE = 'https://records.example.test/v1';
const json = (method: string, body: unknown, headers: Record<string, string> = {}) => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('the HTTP transport', () => {
  it('path parameters become input; a success answers with the output as JSON', async () => {
    const response = await fetch(`${BASE}/records/record-2`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ id: 'record-2', text: 'notes', version: 1 });
    expect(understudy.world.operations[0]).toMatchObject({
      transport: 'http',
      input: { id: 'record-2' },
      actorId: 'agent',
    });
  });

  it("query parameters become input, coerced to the input schema's types", async () => {
    const response = await fetch(`${BASE}/records?version=1&text=notes`);
    expect(await response.json()).toEqual([{ id: 'record-2', text: 'notes', version: 1 }]);
    expect(understudy.world.operations[0].input).toEqual({ version: 1, text: 'notes' });
  });

  it('a JSON body becomes input (path parameters win); the route can answer 201', async () => {
    const created = await fetch(`${BASE}/records`, json('POST', { text: 'new' }));
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ text: 'new', id: 'rec-1', version: 1 });
    const saved = await fetch(`${BASE}/records/record-1`, json('PUT', { id: 'ignored', text: 'put' }));
    expect(await saved.json()).toMatchObject({ id: 'record-1', text: 'put', version: 2 });
  });

  it('a declared error answers with its status, a JSON error envelope and retry-after', async () => {
    understudy.world.reset({ scenario: 'busy-store' });
    const response = await fetch(`${BASE}/records/record-1`, json('PUT', { text: 'x' }));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({
      error: { code: 'BUSY', message: 'Try again', retryable: true, status: 503, retryAfter: 1 },
    });
    const missing = await fetch(`${BASE}/records/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'records "nope" does not exist', retryable: false, status: 404 },
    });
  });

  it('engine errors come back the same way: invalid input 400, a denied actor 403 (x-understudy-actor)', async () => {
    const invalid = await fetch(`${BASE}/records/record-1`, json('PUT', { text: 5 }));
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      error: { code: 'INVALID_INPUT', details: { problems: ['$.text must be string'] } },
    });
    const denied = await fetch(
      `${BASE}/records/record-1`,
      json('PUT', { text: 'x' }, { 'x-understudy-actor': 'viewer' }),
    );
    expect(denied.status).toBe(403);
    expect(understudy.world.operations.map((o) => o.actorId)).toEqual(['agent', 'viewer']);
  });

  it('a body that is not JSON is refused with 400 before the engine (no operation)', async () => {
    const response = await fetch(`${BASE}/records/record-1`, { method: 'PUT', body: '{not json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'INVALID_INPUT', message: 'the request body is not valid JSON' },
    });
    expect(understudy.world.operations).toEqual([]);
  });

  it('the Idempotency-Key header keys the call', async () => {
    const put = () =>
      fetch(`${BASE}/records/record-1`, json('PUT', { text: 'once' }, { 'Idempotency-Key': 'k-1' }));
    await put();
    const again = await put();
    expect(await again.json()).toMatchObject({ version: 2 });
    expect(understudy.world.operations[1]).toMatchObject({
      idempotencyKey: 'k-1',
      idempotent: { replayed: true, of: 1 },
    });
  });

  it('node:https requests are served through msw with the same engine', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(`${BASE}/records/record-1`, { method: 'GET' }, (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(`${res.statusCode} ${text}`));
      });
      req.on('error', reject);
      req.end();
    });
    expect(body).toBe('200 {"id":"record-1","text":"first draft","version":1}');
    expect(understudy.world.operations).toHaveLength(1);
  });

  it('a package base URL serves its own routes only; other hosts are left to the rest of the environment', async () => {
    const audit = await fetch('https://audit.example.test/entries', json('POST', { message: 'hi' }));
    expect(audit.status).toBe(201);
    expect(await audit.json()).toEqual({ message: 'hi', id: 'entry-1' });
    expect(understudy.world.state.audit.entries).toEqual({ 'entry-1': { message: 'hi', id: 'entry-1' } });
  });
});
