/**
 * The MCP transport: world packages with the mcp binding served as MCP servers, over
 * Streamable HTTP at their `mcp.url` (through fetch, node:https and undici) and in-process
 * (`understudy.world.mcpTransport`), driven by `@modelcontextprotocol/sdk`'s own Client and
 * by hand where the wire itself is the point. Every tools/call is one world engine call.
 *
 * @understudy-world ../../../../../fixtures/worlds/notes.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { request as httpsRequest } from 'node:https';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LATEST_PROTOCOL_VERSION,
  ListPromptsResultSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { runDrills, understudy, WorldError } from 'jest-understudy';
import { request as undiciRequest } from 'undici';
import { getRuntime } from '../../../../../src/sandbox/runtime';
import { SUPPORTED_PROTOCOL_VERSIONS as SERVED_VERSIONS } from '../../../../../src/world/mcp/protocol';

const NOTES = 'https://notes.example.test/mcp';
const ARCHIVE = 'https://archive.example.test/mcp';
const ACCEPT = 'application/json, text/event-stream';
const drainFailures = () => getRuntime().drainFailures();

afterEach(() => {
  jest.useRealTimers();
});

/** An SDK client connected over Streamable HTTP (extra headers on every request). */
async function httpClient(url = NOTES, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function inProcessClient(packageId = 'notes', actorId?: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(understudy.world.mcpTransport(packageId, actorId ? { actorId } : undefined));
  return client;
}

const clients = [
  [
    'Streamable HTTP',
    (actorId?: string) => httpClient(NOTES, actorId ? { 'x-understudy-actor': actorId } : {}),
  ],
  ['in-process', (actorId?: string) => inProcessClient('notes', actorId)],
] as const;

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = (id: number, protocolVersion: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** The JSON-RPC messages of an SSE body. */
function events(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      expect(block).toMatch(/^event: message\ndata: /);
      return JSON.parse(block.slice(block.indexOf('data: ') + 6));
    });
}

/** A session opened by hand: its id. */
async function openSession(url = NOTES): Promise<string> {
  const response = await post(url, initialize(1, LATEST_PROTOCOL_VERSION));
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('mcp-session-id')!;
}

describe('MCP · tools', () => {
  it.each(clients)(
    'tools/list over %s: one tool per operation — its toolNames entry (else its id with "." as "_"), description, inputSchema with the definitions inlined and the idempotency argument, outputSchema for object outputs only',
    async (_, connect) => {
      const client = await connect();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['get_note', 'save_note', 'notes_list', 'notes_delete']);
      const key = {
        type: 'string',
        description: expect.stringContaining('Idempotency key'),
      };
      expect(tools[1]).toEqual({
        name: 'save_note',
        description: 'Saves a note, replacing one with the same id.',
        inputSchema: {
          type: 'object',
          properties: { id: { type: 'string' }, text: { type: 'string' }, idempotencyKey: key },
          required: ['id', 'text'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: { id: { type: 'string' }, text: { type: 'string' } },
          required: ['id', 'text'],
        },
      });
      expect(tools[2].outputSchema).toBeUndefined(); // an array output: text content only
      expect(tools[3]).not.toHaveProperty('outputSchema');
      await client.close();
    },
  );

  it.each(clients)(
    'a success over %s: the value as JSON text and as structuredContent, with evidence of transport "mcp"',
    async (_, connect) => {
      const client = await connect();
      const result = await client.callTool({ name: 'get_note', arguments: { id: 'note-1' } });
      expect(result).toEqual({
        content: [{ type: 'text', text: '{"id":"note-1","text":"first"}' }],
        structuredContent: { id: 'note-1', text: 'first' },
      });
      expect(understudy.world.operations).toEqual([
        expect.objectContaining({
          packageId: 'notes',
          operationId: 'notes.get',
          input: { id: 'note-1' },
          actorId: 'agent',
          transport: 'mcp',
          outcome: { kind: 'ok', value: { id: 'note-1', text: 'first' } },
        }),
      ]);
      const listed = await client.callTool({ name: 'notes_list', arguments: {} });
      expect(listed).toEqual({ content: [{ type: 'text', text: '[{"id":"note-1","text":"first"}]' }] });
      await client.close();
    },
  );

  it.each(clients)(
    'a failed operation over %s: isError with the envelope as JSON text; as structuredContent too when the tool has no output schema',
    async (_, connect) => {
      const client = await connect();
      // get_note has an output schema: SDK 1.x clients check an error's structuredContent against it
      // (once they have listed the tools, as agents do) and throw, so the envelope goes as text only.
      await client.listTools();
      const missing = await client.callTool({ name: 'get_note', arguments: { id: 'nope' } });
      const envelope = {
        code: 'NOT_FOUND',
        message: 'notes "nope" does not exist',
        retryable: false,
        status: 404,
      };
      expect(missing).toEqual({ content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true });
      const gone = await client.callTool({ name: 'notes_delete', arguments: { id: 'nope' } });
      expect(gone).toEqual({
        content: [{ type: 'text', text: JSON.stringify(envelope) }],
        structuredContent: envelope,
        isError: true,
      });
      expect(understudy.world.operations.map((o) => [o.operationId, o.outcome.kind])).toEqual([
        ['notes.get', 'error'],
        ['notes.delete', 'error'],
      ]);
      await client.close();
    },
  );

  it.each(clients)(
    'permissions over %s: the actor comes from x-understudy-actor (in-process: { actorId }), else the default actor',
    async (_, connect) => {
      const reader = await connect('reader');
      expect(
        (await reader.callTool({ name: 'get_note', arguments: { id: 'note-1' } })).isError,
      ).toBeUndefined();
      const denied = await reader.callTool({ name: 'save_note', arguments: { id: 'note-1', text: 'x' } });
      expect(denied.isError).toBe(true);
      expect(JSON.parse((denied.content as Array<{ text: string }>)[0].text)).toEqual({
        code: 'PERMISSION_DENIED',
        message: 'actor "reader" may not call notes/notes.save',
        retryable: false,
        status: 403,
      });
      const agent = await connect();
      expect(
        (await agent.callTool({ name: 'save_note', arguments: { id: 'note-1', text: 'y' } })).isError,
      ).toBeUndefined();
      expect(understudy.world.operations.map((o) => o.actorId)).toEqual(['reader', 'reader', 'agent']);
      expect(understudy.world.state.notes.notes['note-1'].text).toBe('y');
      await Promise.all([reader.close(), agent.close()]);
    },
  );

  it('input validation, budgets: the engine refuses as for every transport', async () => {
    const client = await inProcessClient();
    const invalid = await client.callTool({ name: 'save_note', arguments: { id: 'note-1', text: 5 } });
    expect(JSON.parse((invalid.content as Array<{ text: string }>)[0].text)).toMatchObject({
      code: 'INVALID_INPUT',
      details: { problems: ['$.text must be string'] },
    });
    expect(
      (await client.callTool({ name: 'notes_delete', arguments: { id: 'note-1' } })).isError,
    ).toBeUndefined();
    const over = await client.callTool({ name: 'notes_delete', arguments: { id: 'note-1' } });
    expect(over.structuredContent).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      details: { budget: 'one-delete' },
    });
    expect(understudy.world.operations.map((o) => o.outcome.kind)).toEqual(['error', 'ok', 'error']);
    await client.close();
  });

  it('idempotency: the mcp.idempotencyKey argument keys the call and leaves the input; a repeat returns the receipt', async () => {
    const client = await httpClient();
    const save = (text: string, idempotencyKey: unknown) =>
      client.callTool({ name: 'save_note', arguments: { id: 'note-2', text, idempotencyKey } });
    expect((await save('once', 'k-1')).structuredContent).toEqual({ id: 'note-2', text: 'once' });
    expect((await save('once', 'k-1')).structuredContent).toEqual({ id: 'note-2', text: 'once' });
    const conflict = await save('twice', 'k-1');
    expect(JSON.parse((conflict.content as Array<{ text: string }>)[0].text)).toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
    });
    expect(understudy.world.operations.map((o) => [o.input, o.idempotencyKey, o.idempotent])).toEqual([
      [{ id: 'note-2', text: 'once' }, 'k-1', undefined],
      [{ id: 'note-2', text: 'once' }, 'k-1', { replayed: true, of: 1 }],
      [{ id: 'note-2', text: 'twice' }, 'k-1', undefined],
    ]);
    const badKey = await save('x', 7);
    expect(JSON.parse((badKey.content as Array<{ text: string }>)[0].text)).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'the idempotency key argument "idempotencyKey" must be a non-empty string',
    });
    expect(understudy.world.operations).toHaveLength(3); // refused before the engine, like a bad HTTP body
    await client.close();
  });

  it('tool overrides apply after transport decoding: a times: 1 BUSY, then the behavior', async () => {
    understudy.world.reset({ scenario: 'busy-notes' });
    const client = await httpClient();
    const save = () => client.callTool({ name: 'save_note', arguments: { id: 'note-3', text: 'three' } });
    const busy = await save();
    expect(busy.isError).toBe(true);
    expect(JSON.parse((busy.content as Array<{ text: string }>)[0].text)).toEqual({
      code: 'BUSY',
      message: 'The notes service is busy',
      retryable: true,
      status: 503,
    });
    expect((await save()).structuredContent).toEqual({ id: 'note-3', text: 'three' });
    expect(understudy.world.operations.map((o) => o.override)).toEqual([
      { id: 'busy-once', scope: 'scenario', outcome: 'error', matchCount: 1 },
      undefined,
    ]);
    await client.close();
  });

  it('a latency fault: the answer waits on the test clock (Jest fake timers here)', async () => {
    const client = await inProcessClient();
    jest.useFakeTimers();
    let done = false;
    const pending = client.callTool({ name: 'notes_list', arguments: { slow: true } }).then((r) => {
      done = true;
      return r;
    });
    await jest.advanceTimersByTimeAsync(1499);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect((await pending).isError).toBeUndefined();
    expect(understudy.world.operations[0]).toMatchObject({
      latencyMs: 1500,
      faults: [{ id: 'slow-list', kind: 'latency' }],
    });
    await client.close();
  });

  it('a call of a tool the server does not have: a JSON-RPC error, and the test fails', async () => {
    const client = await inProcessClient();
    await expect(client.callTool({ name: 'save_nots', arguments: {} })).rejects.toThrow(
      'Unknown tool: save_nots',
    );
    const failures = drainFailures();
    expect(failures).toEqual([
      {
        code: 'UNKNOWN_OPERATION',
        message:
          'tools/call "save_nots": the MCP server of package "notes" has no such tool.\n  Its tools: get_note, save_note, notes_list, notes_delete.',
      },
    ]);
    expect(understudy.world.operations).toEqual([]);
    await client.close();
  });
});

describe('MCP · the protocol', () => {
  it('initialize negotiates as the SDK does: the client version when supported (every one the SDK speaks), else the latest', async () => {
    expect(SERVED_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    for (const version of [...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01']) {
      const response = await post(NOTES, initialize(1, version));
      const [message] = events(await response.text());
      expect(message).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: version === '1999-01-01' ? LATEST_PROTOCOL_VERSION : version,
          capabilities: { tools: {}, resources: {} },
          serverInfo: { name: 'notes', version: expect.stringMatching(/^[0-9a-f]{12}$/) },
        },
      });
    }
  });

  it('ping, an unknown method, and state collections as read-only resources', async () => {
    const client = await inProcessClient();
    await expect(client.ping()).resolves.toEqual({});
    await expect(client.request({ method: 'prompts/list' }, ListPromptsResultSchema)).rejects.toThrow(
      'Method not found: prompts/list',
    );
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      {
        uri: 'understudy://notes/notes',
        name: 'notes',
        description: expect.any(String),
        mimeType: 'application/json',
      },
    ]);
    await client.callTool({ name: 'save_note', arguments: { id: 'note-4', text: 'four' } });
    const read = await client.readResource({ uri: 'understudy://notes/notes' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({
      'note-1': { id: 'note-1', text: 'first' },
      'note-4': { id: 'note-4', text: 'four' },
    });
    await expect(client.readResource({ uri: 'understudy://notes/other' })).rejects.toThrow(
      'Resource not found: understudy://notes/other',
    );
    await client.close();
  });
});

describe('MCP · Streamable HTTP', () => {
  it('SSE answers (the default) and JSON answers (mcp.response: json), each with the session id', async () => {
    const sse = await post(NOTES, initialize(1, LATEST_PROTOCOL_VERSION));
    expect(sse.headers.get('content-type')).toBe('text/event-stream');
    const session = sse.headers.get('mcp-session-id');
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect(events(await sse.text())).toHaveLength(1);

    const json = await post(ARCHIVE, initialize(1, LATEST_PROTOCOL_VERSION));
    expect(json.headers.get('content-type')).toBe('application/json');
    const archiveSession = json.headers.get('mcp-session-id')!;
    expect(await json.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'archive' } } });
    const call = { name: 'archive_note', arguments: { id: 'note-1' } };
    const batch = await post(
      ARCHIVE,
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: call },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ],
      { 'mcp-session-id': archiveSession },
    );
    expect(await batch.json()).toEqual([
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '{"id":"note-1"}' }] } },
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
    expect(understudy.world.state.archive.entries).toEqual({ 'note-1': { id: 'note-1' } });
  });

  it('a message without requests is accepted with 202; DELETE ends the session; GET offers no stream (405)', async () => {
    const session = await openSession();
    const note = await post(
      NOTES,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': session },
    );
    expect([note.status, await note.text()]).toEqual([202, '']);
    const get = await fetch(NOTES, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, DELETE');
    const ended = await fetch(NOTES, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(ended.status).toBe(200);
    const after = await post(NOTES, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': session });
    expect(after.status).toBe(404);
    expect(await after.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'Session not found' },
    });
  });

  it('refuses what the SDK server refuses: no session, a bad Accept or Content-Type, bad JSON, an unsupported version', async () => {
    const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };
    const error = async (response: Response) => [
      response.status,
      ((await response.json()) as { error: { message: string } }).error.message,
    ];
    expect(await error(await post(NOTES, ping))).toEqual([
      400,
      'Bad Request: Mcp-Session-Id header is required',
    ]);
    expect(await error(await post(NOTES, ping, { accept: 'application/json' }))).toEqual([
      406,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    ]);
    expect(await error(await post(NOTES, ping, { 'content-type': 'text/plain' }))).toEqual([
      415,
      'Unsupported Media Type: Content-Type must be application/json',
    ]);
    const bad = await fetch(NOTES, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: '{nope',
    });
    expect(await error(bad)).toEqual([400, 'Parse error: Invalid JSON']);
    expect(await error(await post(NOTES, { hello: 'world' }))).toEqual([
      400,
      'Parse error: Invalid JSON-RPC message',
    ]);
    const session = await openSession();
    const future = await post(NOTES, ping, {
      'mcp-session-id': session,
      'mcp-protocol-version': '2026-07-28',
    });
    expect(await error(future)).toEqual([
      400,
      expect.stringContaining('Bad Request: Unsupported protocol version: 2026-07-28'),
    ]);
    expect(drainFailures()).toEqual([]); // a client's mistakes are the client's to see, not test failures
  });

  it('node:https and undici reach the endpoint through the same server', async () => {
    const body = JSON.stringify(initialize(1, '2025-06-18'));
    const headers = { 'content-type': 'application/json', accept: ACCEPT };
    const viaHttps = await new Promise<{ status?: number; session: unknown; text: string }>(
      (resolve, reject) => {
        const req = httpsRequest(NOTES, { method: 'POST', headers }, (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () =>
            resolve({ status: res.statusCode, session: res.headers['mcp-session-id'], text }),
          );
        });
        req.on('error', reject);
        req.end(body);
      },
    );
    expect(viaHttps.status).toBe(200);
    expect(events(viaHttps.text)).toMatchObject([{ id: 1, result: { protocolVersion: '2025-06-18' } }]);
    const session = viaHttps.session as string;
    const viaUndici = await undiciRequest(NOTES, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'get_note', arguments: { id: 'note-1' } },
      }),
    });
    expect(viaUndici.statusCode).toBe(200);
    expect(events(await viaUndici.body.text())).toMatchObject([
      { id: 2, result: { structuredContent: { id: 'note-1' } } },
    ]);
    expect(understudy.world.operations.map((o) => o.transport)).toEqual(['mcp']);
  });
});

describe('MCP · drills and the API', () => {
  it('during a drill, MCP calls (both transports) reach the trial world, as its actor', async () => {
    const result = await runDrills({
      drill: 'save-note',
      agent: async () => {
        const http = await httpClient();
        const local = await inProcessClient();
        const save = { name: 'save_note', arguments: { id: 'note-9', text: 'nine' } };
        expect((await http.callTool(save)).isError).toBe(true); // busy-once, the drill's scenario
        expect((await local.callTool(save)).isError).toBeUndefined();
        await Promise.all([http.close(), local.close()]);
      },
    });
    expect(result).toHavePassedDrill();
    expect(result.evidence.map((o) => [o.transport, o.outcome.kind])).toEqual([
      ['mcp', 'error'],
      ['mcp', 'ok'],
    ]);
    expect(understudy.world.operations).toEqual([]);
    expect(understudy.world.state.notes.notes['note-9']).toBeUndefined();
  });

  it('mcpTransport refuses what it cannot connect, naming the argument or the package', () => {
    expect(() => understudy.world.mcpTransport('')).toThrow(
      new WorldError(
        'BAD_ARGUMENT',
        'understudy.world.mcpTransport(packageId): expected a package id string',
      ),
    );
    expect(() => understudy.world.mcpTransport('notez')).toThrow(
      'understudy.world.mcpTransport(packageId): world "notes" has no package "notez" (it has "notes", "archive")',
    );
    expect(() => understudy.world.mcpTransport('notes', { actorId: '' })).toThrow(
      'options.actorId must be a non-empty string',
    );
    understudy.world.load(`${__dirname}/../../../../../fixtures/worlds/records.world.yaml`);
    expect(() => understudy.world.mcpTransport('record-store')).toThrow(
      expect.objectContaining({
        code: 'BINDING_UNSUPPORTED',
        message:
          'understudy.world.mcpTransport(packageId): package "record-store" has bindings [direct, http], not "mcp": add "mcp" to its bindings to serve it as an MCP server',
      }),
    );
  });

  it('a package with the mcp binding and no url is served in-process only', async () => {
    understudy.world.load(`${__dirname}/../../../../../fixtures/worlds/records.world.yaml`);
    const client = await inProcessClient('mailer', 'intern');
    const { tools } = await client.listTools();
    expect(tools).toEqual([{ name: 'mail_send', inputSchema: { type: 'object' } }]);
    expect(await client.callTool({ name: 'mail_send', arguments: { to: 'a@b.test' } })).toEqual({
      content: [],
    });
    expect(understudy.world.operations).toMatchObject([{ packageId: 'mailer', transport: 'mcp' }]);
    await client.close();
  });
});
