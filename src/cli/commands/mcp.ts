/**
 * `understudy mcp stdio --package <id>`: a stdio MCP server (newline-delimited JSON-RPC on
 * stdin and stdout) that proxies every message to the package's MCP endpoint on the served
 * port of the test that started it (UNDERSTUDY_SERVE_URL), over Streamable HTTP. An agent
 * configured to spawn its MCP servers by command gets the world's tools, state and evidence.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { RPC } from '../../world/mcp/protocol';
import { ACTOR_HEADER } from '../../world/transports/http';
import { classify, errorReply, repliesFor } from '../mcp-replies';

const HELP = `
Configure the agent's MCP server as the command \`understudy mcp stdio --package <id>\`, started
with the served port's environment (\`served.env\` of \`await understudy.serve()\`, which sets
UNDERSTUDY_SERVE_URL). Every message goes to the package's MCP endpoint there, so each tools/call
is a world operation of the test's world (transport "mcp"), credited to the run that started it.

Exit codes:
  0  stdin ended (the client closed the server)
  2  bad usage (no --package)
  3  no served port: UNDERSTUDY_SERVE_URL is unset`;

/** The JSON-RPC messages of an answer: a JSON body (one or a batch) or an SSE stream of `message` events; a body that is no JSON is itself the answer. */
function messagesOf(contentType: string, text: string): unknown[] {
  if (text.trim() === '') return [];
  if (!contentType.includes('text/event-stream')) {
    const body = parseJson(text);
    return Array.isArray(body) ? body : [body];
  }
  const out: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data !== '') out.push(parseJson(data));
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description("serve a world package's MCP server to a test's agent");
  mcp
    .command('stdio')
    .description("a stdio MCP server proxying to a package's MCP endpoint on the served port")
    .requiredOption('--package <id>', 'the world package (with the mcp binding)')
    .option('--actor <id>', "the actor of every call (default: the world's defaultActor, or the drill's)")
    .option('--url <serveUrl>', 'the served port (default: $UNDERSTUDY_SERVE_URL)')
    .addHelpText('after', HELP)
    .action((options: { package: string; actor?: string; url?: string }) => proxyStdio(options));
}

async function proxyStdio(options: { package: string; actor?: string; url?: string }): Promise<void> {
  const base = options.url ?? process.env.UNDERSTUDY_SERVE_URL;
  if (!base) {
    process.stderr.write(
      "understudy mcp stdio: UNDERSTUDY_SERVE_URL is not set: start this server with the served port's environment (`served.env` of `await understudy.serve()`), or pass --url\n",
    );
    process.exitCode = 3;
    return;
  }
  const endpoint = `${base.replace(/\/+$/, '')}/mcp/${encodeURIComponent(options.package)}`;
  let session: string | undefined;
  let protocolVersion: string | undefined;
  // Every message after `initialize` waits for its answer: it carries the session id.
  let initialized: Promise<void> = Promise.resolve();
  const pending = new Set<Promise<void>>();
  const write = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);

  /** Forwards one line's message (or batch); answers each request in it exactly once, never anything else. */
  const forward = async (message: unknown): Promise<void> => {
    const items = Array.isArray(message) ? message : [message];
    const sent = items.map(classify);
    const requests = sent.flatMap((m) => (m.kind === 'request' ? [m] : []));
    for (const m of sent)
      if (m.kind === 'invalid') write(errorReply(m.id, RPC.INVALID_REQUEST, `Invalid Request: ${m.why}`));
    const valid = items.filter((_, i) => sent[i].kind !== 'invalid');
    if (valid.length === 0) return;
    const body = Array.isArray(message) ? valid : valid[0];
    const headers: Record<string, string> = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    };
    if (session) headers['mcp-session-id'] = session;
    if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    if (options.actor) headers[ACTOR_HEADER] = options.actor;
    try {
      const response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body) });
      session = response.headers.get('mcp-session-id') ?? session;
      const answers = messagesOf(response.headers.get('content-type') ?? '', await response.text());
      const initialize = requests.find((r) => r.method === 'initialize');
      for (const answer of answers) {
        const result = (answer as { id?: unknown; result?: { protocolVersion?: unknown } } | null)?.result;
        if (initialize && typeof result?.protocolVersion === 'string')
          protocolVersion = result.protocolVersion;
      }
      for (const reply of repliesFor(requests, answers, response.status)) write(reply);
      // What answered no request (a refusal of a notification) is the user's to read, not the client's.
      if (requests.length === 0 && !response.ok)
        process.stderr.write(
          `understudy mcp stdio: the served MCP endpoint answered ${response.status} to a notification: ${JSON.stringify(answers[0] ?? '')}\n`,
        );
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      const text = `understudy mcp stdio: cannot reach ${endpoint}: ${cause}`;
      process.stderr.write(`${text}\n`);
      for (const r of requests) write(errorReply(r.id, RPC.INTERNAL_ERROR, text));
    }
  };

  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      write(errorReply(null, RPC.PARSE_ERROR, 'Parse error: Invalid JSON'));
      continue;
    }
    const after = initialized;
    const done = after.then(() => forward(message));
    if (
      (Array.isArray(message) ? message : [message]).some(
        (m) => classify(m).kind === 'request' && (m as { method?: unknown }).method === 'initialize',
      )
    )
      initialized = done;
    pending.add(done);
    void done.finally(() => pending.delete(done));
  }
  await Promise.allSettled([...pending]);
  if (session)
    await fetch(endpoint, { method: 'DELETE', headers: { 'mcp-session-id': session } }).catch(
      () => undefined,
    );
  process.exitCode = 0;
}
