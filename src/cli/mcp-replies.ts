/**
 * What `understudy mcp stdio` writes back for what it forwarded: JSON-RPC 2.0 and nothing else.
 * Every request gets exactly one response with its id (a result, or an error with an integer
 * code); a notification or a response gets nothing, whatever the served port said about it. An
 * answer that is not JSON-RPC (the served port's own refusals, `{ error: { code: "RUN_ENDED" } }`)
 * becomes a JSON-RPC error of the request it answers, its code and status kept in `data`.
 */
import { RPC } from '../world/mcp/protocol';

type Id = string | number;

export interface Reply {
  jsonrpc: '2.0';
  id: Id | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export type Sent =
  | { kind: 'request'; id: Id; method: string }
  | { kind: 'notification' }
  | { kind: 'response' }
  | { kind: 'invalid'; id: Id | null; why: string };

const isId = (value: unknown): value is Id =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What one message from the client is, by JSON-RPC 2.0's rules. */
export function classify(message: unknown): Sent {
  if (!isObject(message)) return { kind: 'invalid', id: null, why: 'a message must be a JSON object' };
  const id = isId(message.id) ? message.id : null;
  if (message.jsonrpc !== '2.0') return { kind: 'invalid', id, why: '"jsonrpc" must be "2.0"' };
  if (typeof message.method === 'string') {
    if (!('id' in message)) return { kind: 'notification' };
    if (!isId(message.id)) return { kind: 'invalid', id: null, why: '"id" must be a string or a number' };
    return { kind: 'request', id: message.id, method: message.method };
  }
  if ('result' in message || 'error' in message) return { kind: 'response' };
  return { kind: 'invalid', id, why: 'a request needs a "method"' };
}

export const errorReply = (id: Id | null, code: number, message: string, data?: unknown): Reply => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data !== undefined && { data }) },
});

/** A JSON-RPC response as the spec has it (an integer error code), or undefined. */
function asResponse(answer: unknown): Reply | undefined {
  if (!isObject(answer) || answer.jsonrpc !== '2.0') return undefined;
  if (!(isId(answer.id) || answer.id === null)) return undefined;
  if ('result' in answer) return { jsonrpc: '2.0', id: answer.id, result: answer.result };
  const error = answer.error;
  if (isObject(error) && Number.isInteger(error.code) && typeof error.message === 'string')
    return errorReply(answer.id, error.code as number, error.message, error.data);
  return undefined;
}

/** The error an answer that is not JSON-RPC stands for. */
function refusalOf(answer: unknown, status: number): { message: string; data: Record<string, unknown> } {
  const error = isObject(answer) && isObject(answer.error) ? answer.error : undefined;
  const message =
    typeof error?.message === 'string'
      ? error.message
      : `the served MCP endpoint answered ${status} with a body that is not JSON-RPC`;
  return {
    message,
    data: { status, ...(error && typeof error.code === 'string' && { code: error.code }) },
  };
}

/**
 * The lines to write for `requests` (the requests among what was forwarded, in order), given
 * the answers the endpoint sent and its HTTP status. Answers with the id of a request answer
 * it; one with id null (a transport refusal) or not JSON-RPC answers the first request left.
 */
export function repliesFor(
  requests: ReadonlyArray<{ id: Id; method: string }>,
  answers: readonly unknown[],
  status: number,
): Reply[] {
  const open = new Map<Id, true>(requests.map((r) => [r.id, true]));
  const replies: Reply[] = [];
  const take = (reply: Reply) => {
    if (reply.id === null || !open.has(reply.id)) return;
    open.delete(reply.id);
    replies.push(reply);
  };
  const leftOver: unknown[] = [];
  for (const answer of answers) {
    const response = asResponse(answer);
    if (response && response.id !== null && open.has(response.id)) take(response);
    else leftOver.push(answer);
  }
  for (const answer of leftOver) {
    const next = open.keys().next();
    if (next.done) break;
    const response = asResponse(answer);
    if (response?.error) take({ ...response, id: next.value });
    else if (!response) {
      const { message, data } = refusalOf(answer, status);
      take(errorReply(next.value, RPC.TRANSPORT, message, data));
    }
  }
  for (const id of open.keys())
    replies.push(
      errorReply(
        id,
        RPC.INTERNAL_ERROR,
        `the served MCP endpoint answered ${status} without a response to this request`,
        {
          status,
        },
      ),
    );
  return replies;
}
