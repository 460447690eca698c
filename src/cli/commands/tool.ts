/**
 * `understudy tool call <packageId>/<operationId> --json '{…}'`: one world operation, called
 * over the served port of the test that started this process (UNDERSTUDY_SERVE_URL, from
 * `served.env`), so a shell agent's tools are commands and still go through the world engine.
 */
import type { Command } from 'commander';

/** Exit codes, as `--help` documents them. */
export const TOOL_EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;

const HELP = `
Prints the operation's output as JSON on stdout. A failed operation prints its error envelope
({"code","message","retryable","status",…}) as JSON on stderr.

The served port comes from UNDERSTUDY_SERVE_URL (or --url): a test sets it with
\`spawn(cmd, args, { env: { ...process.env, ...served.env } })\` after \`await understudy.serve()\`.

Exit codes:
  0  the operation succeeded (its output on stdout)
  1  the operation failed (its error envelope on stderr)
  2  bad usage (an argument is missing or malformed)
  3  no served port: UNDERSTUDY_SERVE_URL is unset, or nothing answers there as jest-understudy`;

interface ToolCallOptions {
  json?: string;
  actor?: string;
  idempotencyKey?: string;
  url?: string;
}

function fail(code: number, message: string): void {
  process.stderr.write(`understudy tool call: ${message}\n`);
  process.exitCode = code;
}

export function registerTool(program: Command): void {
  const tool = program
    .command('tool')
    .description("call the world's operations of a test's served port (understudy.serve())");
  tool
    .command('call')
    .description("call one world operation: understudy tool call <packageId>/<operationId> --json '{…}'")
    .argument('<operation>', '<packageId>/<operationId>, e.g. orders/orders.get')
    .option('--json <input>', 'the operation input, as JSON (default {})')
    .option('--actor <id>', "the actor calling (default: the world's defaultActor, or the drill's)")
    .option('--idempotency-key <key>', 'the idempotency key of the call')
    .option('--url <serveUrl>', 'the served port (default: $UNDERSTUDY_SERVE_URL)')
    .addHelpText('after', HELP)
    .action((operation: string, options: ToolCallOptions) => callTool(operation, options));
}

async function callTool(operation: string, options: ToolCallOptions): Promise<void> {
  const slash = operation.indexOf('/');
  if (slash <= 0 || slash === operation.length - 1)
    return fail(
      TOOL_EXIT.usage,
      `expected <packageId>/<operationId> (e.g. orders/orders.get), got "${operation}"`,
    );
  const packageId = operation.slice(0, slash);
  const operationId = operation.slice(slash + 1);
  let input: unknown = {};
  if (options.json !== undefined) {
    try {
      input = JSON.parse(options.json);
    } catch (error) {
      return fail(TOOL_EXIT.usage, `--json is not valid JSON (${(error as Error).message}): ${options.json}`);
    }
  }
  for (const [flag, value] of [
    ['--actor', options.actor],
    ['--idempotency-key', options.idempotencyKey],
  ] as const)
    if (value !== undefined && value === '') return fail(TOOL_EXIT.usage, `${flag} must not be empty`);
  const base = options.url ?? process.env.UNDERSTUDY_SERVE_URL;
  if (!base)
    return fail(
      TOOL_EXIT.unreachable,
      "UNDERSTUDY_SERVE_URL is not set: start this process with the served port's environment (`served.env` of `await understudy.serve()`), or pass --url",
    );
  const url = `${base.replace(/\/+$/, '')}/tools/${encodeURIComponent(packageId)}/${encodeURIComponent(operationId)}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        input,
        ...(options.actor !== undefined && { actorId: options.actor }),
        ...(options.idempotencyKey !== undefined && { idempotencyKey: options.idempotencyKey }),
      }),
    });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    return fail(TOOL_EXIT.unreachable, `cannot reach the served port at ${base}: ${cause}`);
  }
  let body: { output?: unknown; error?: unknown } | undefined;
  try {
    body = (await response.json()) as typeof body;
  } catch {
    body = undefined;
  }
  if (response.ok && body && 'output' in body) {
    process.stdout.write(`${JSON.stringify(body.output)}\n`);
    process.exitCode = TOOL_EXIT.ok;
    return;
  }
  if (body?.error && typeof body.error === 'object') {
    process.stderr.write(`${JSON.stringify(body.error)}\n`);
    process.exitCode = TOOL_EXIT.failed;
    return;
  }
  fail(
    TOOL_EXIT.unreachable,
    `${base} answered ${response.status} without a tool result: is it a served port of jest-understudy?`,
  );
}
