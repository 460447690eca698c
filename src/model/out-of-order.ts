/**
 * A reply whose text comes after a tool call, answering a protocol that sends a reply's text
 * apart from its calls: no wire form of it keeps the order, so it is refused rather than sent
 * reordered (the agent would be tested against an answer the model never gave).
 */
import type { NeutralError } from '../conversation';
import { type Fixture, sourceOf } from '../fixtures/types';

/** Why each protocol without order cannot send one, in the words of its wire format. */
const WHY: Record<string, { name: string; why: string }> = {
  'openai.chat': {
    name: 'Chat Completions',
    why: "a message's `content` and its `tool_calls` are separate fields, so a client reads the text as coming before the calls",
  },
  'ollama.chat': {
    name: "Ollama's /api/chat",
    why: "a message's `content` and its `tool_calls` are separate fields, so a client reads the text as coming before the calls",
  },
  'ollama.generate': {
    name: "Ollama's /api/generate",
    why: 'a reply is one `response` text, with no place for tool calls',
  },
};

export interface OutOfOrder {
  /** The test failure (`REPLY_ORDER_UNSUPPORTED`). */
  message: string;
  /** What the agent gets instead of the reply. */
  error: NeutralError;
}

/** The first text block after a tool call in the fixture's `blocks`, as a JSON path below the fixture. */
function lateBlockPath(fixture: Fixture): string {
  const blocks = fixture.response.blocks ?? [];
  const firstCall = blocks.findIndex((b) => b.type === 'toolCall');
  const late = blocks.findIndex((b, k) => k > firstCall && b.type === 'text' && b.text !== '');
  return late === -1 ? 'response.blocks' : `response.blocks[${late}]`;
}

function whereOf(fixture: Fixture, order: number): string {
  const source = sourceOf(fixture);
  const at = lateBlockPath(fixture);
  if (source?.file) return `${source.file} at ${source.path ?? '$'}.${at}`;
  return `fixture #${order}${fixture.id ? ` (${JSON.stringify(fixture.id)})` : ''} at ${at}`;
}

/** `what`: the request, as the model server names it (`this openai.chat request (POST …)`). */
export function outOfOrder(protocol: string, fixture: Fixture, order: number, what: string): OutOfOrder {
  const { name, why } = WHY[protocol] ?? {
    name: protocol,
    why: 'it does not keep the order of text and tool calls',
  };
  const message = [
    `jest-understudy: the fixture that answered ${what} has text after a tool call, which ${name} cannot send in that order: ${why}.`,
    `  Fixture: ${whereOf(fixture, order)}`,
    `  The agent got a 500 instead of a reordered reply.`,
    `  To fix: give this protocol a reply whose text comes before its calls (move the text blocks before the toolCall blocks, or put the text in the next turn's fixture, after the tool results), or run the agent on a protocol that keeps the order: Responses, Anthropic Messages, Gemini or Bedrock Converse.`,
  ].join('\n');
  return {
    message,
    error: {
      status: 500,
      type: 'server_error',
      message: `jest-understudy: the fixture's reply has text after a tool call, which ${name} cannot send in that order (the test failure says where and what to do)`,
    },
  };
}
