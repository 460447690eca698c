/**
 * Prompt assembly checks (the unit layer of the agent test pyramid): what a model call
 * carried, before any model saw it.
 * - `toMatchPromptSnapshot(hint?)`: a Jest snapshot of the system prompt and the tool
 *   manifest (`-u` updates it like any snapshot).
 * - `toHavePromptTokensBelow(n, { encoding?, scope? })`: the prompt's token count, with a
 *   real BPE tokenizer (gpt-tokenizer), is below `n`.
 * Both take a ModelCall (`understudy.model.calls[i]`, `run.modelCalls[i]`) or a Run (every
 * model call it made).
 */

import type { MatcherContext, SyncExpectationResult } from 'expect';
import type { Conversation, NeutralTool } from '../src/conversation';
import { scrubForWriting } from '../src/files/write';
import { matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printReceived,
  printWithType,
  RECEIVED_COLOR,
} from './matcher-utils';

interface CallLike {
  index?: number;
  conversation: Pick<Conversation, 'messages' | 'tools' | 'model'>;
}

function isCall(value: unknown): value is CallLike {
  const c = (value as { conversation?: { messages?: unknown; tools?: unknown } } | null)?.conversation;
  return typeof c === 'object' && c !== null && Array.isArray(c.messages) && Array.isArray(c.tools);
}

/** The model calls to check, or a matcher error naming what was expected. */
function callsOf(received: unknown, hint: string): CallLike[] {
  if (isCall(received)) return [received];
  const calls = (received as { modelCalls?: unknown } | null)?.modelCalls;
  if (Array.isArray(calls) && calls.every(isCall)) {
    if (calls.length === 0)
      throw matcherError(
        matcherErrorMessage(
          hint,
          `${RECEIVED_COLOR('received')} run made no model calls, so it carried no prompt`,
        ),
      );
    return calls;
  }
  throw matcherError(
    matcherErrorMessage(
      hint,
      `${RECEIVED_COLOR('received')} value must be a model call (understudy.model.calls[i], run.modelCalls[i]) or a Run`,
      printWithType('Received', received, printReceived),
    ),
  );
}

function systemOf(call: CallLike): string {
  return call.conversation.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.text ?? '')
    .join('\n');
}

const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((line) => (line === '' ? line : by + line))
    .join('\n');

function manifest(tools: readonly NeutralTool[]): string {
  if (tools.length === 0) return 'tools: none';
  const lines = [`tools (${tools.length}):`];
  for (const t of tools) {
    lines.push(`  ${t.name}${t.description ? `: ${t.description.replace(/\s*\n\s*/g, ' ')}` : ''}`);
    if (t.parameters !== undefined) lines.push(indent(JSON.stringify(t.parameters, null, 2), '    '));
  }
  return lines.join('\n');
}

/** The system prompt and tool manifest a call carried, as the snapshot stores them. */
export function promptText(call: CallLike): string {
  const system = systemOf(call);
  return `system:\n${system === '' ? '  (none)' : indent(system, '  ')}\n${manifest(call.conversation.tools)}`;
}

/** The prompts of several calls: once when they agree, else each distinct one with its calls. */
export function promptsText(calls: readonly CallLike[]): string {
  const groups = new Map<string, number[]>();
  calls.forEach((call, i) => {
    const text = promptText(call);
    groups.set(text, [...(groups.get(text) ?? []), call.index ?? i]);
  });
  if (groups.size === 1) return [...groups.keys()][0];
  return [...groups.entries()]
    .map(
      ([text, indices]) =>
        `${indices.length === 1 ? 'model call' : 'model calls'} ${indices.join(', ')}:\n${indent(text, '  ')}`,
    )
    .join('\n\n');
}

type SnapshotMatcher = (this: MatcherContext, received: unknown, hint?: string) => SyncExpectationResult;

export function toMatchPromptSnapshot(
  this: MatcherContext,
  received: unknown,
  hint?: unknown,
): SyncExpectationResult {
  const matcherHint = this.utils.matcherHint(
    'toMatchPromptSnapshot',
    undefined,
    hint === undefined ? '' : 'hint',
    {
      isNot: this.isNot,
      promise: this.promise,
    },
  );
  if (hint !== undefined && typeof hint !== 'string')
    throw matcherError(
      matcherErrorMessage(
        matcherHint,
        `${EXPECTED_COLOR('hint')} must be a string`,
        printWithType('hint', hint, printReceived),
      ),
    );
  const calls = callsOf(received, matcherHint);
  // Jest's own snapshot matcher, with this matcher's context: the test's snapshot state,
  // so the snapshot lives in the test's .snap file and `-u` updates it. The .snap file is
  // written on our behalf, so the prompt goes in as every product write does: keys blanked.
  const { toMatchSnapshot } = require('jest-snapshot') as { toMatchSnapshot: SnapshotMatcher };
  const text = scrubForWriting(promptsText(calls));
  return toMatchSnapshot.call(this, text, hint ? `prompt: ${hint}` : 'prompt');
}

export type TokenEncoding = 'o200k_base' | 'cl100k_base';

export interface PromptTokenOptions {
  /** Default: by model name (cl100k_base for gpt-4 / gpt-3.5, o200k_base for the rest). */
  encoding?: TokenEncoding;
  /** 'request' (default): system prompt, messages and tool manifest; 'system+tools': what the agent assembles. */
  scope?: 'request' | 'system+tools';
}

type Tokenizer = { countTokens(text: string): number };
const tokenizers = new Map<TokenEncoding, Tokenizer>();

function tokenizer(encoding: TokenEncoding): Tokenizer {
  let t = tokenizers.get(encoding);
  if (!t) {
    // Loaded on first use: the encodings ship in the package, no download, but they are large.
    t =
      encoding === 'cl100k_base'
        ? (require('gpt-tokenizer/encoding/cl100k_base') as Tokenizer)
        : (require('gpt-tokenizer/encoding/o200k_base') as Tokenizer);
    tokenizers.set(encoding, t);
  }
  return t;
}

export function encodingFor(model: string): TokenEncoding {
  return /^(gpt-4(?!o|\.\d)|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(model)
    ? 'cl100k_base'
    : 'o200k_base';
}

export interface PromptTokens {
  total: number;
  system: number;
  tools: number;
  messages: number;
  encoding: TokenEncoding;
}

/** Tokens of a call's prompt: each part counted as the text the model reads. */
export function countPromptTokens(call: CallLike, options: PromptTokenOptions = {}): PromptTokens {
  const encoding = options.encoding ?? encodingFor(call.conversation.model ?? '');
  const count = (text: string) => (text === '' ? 0 : tokenizer(encoding).countTokens(text));
  const system = count(systemOf(call));
  const tools = call.conversation.tools.length === 0 ? 0 : count(JSON.stringify(call.conversation.tools));
  let messages = 0;
  if ((options.scope ?? 'request') === 'request') {
    for (const m of call.conversation.messages) {
      if (m.role === 'system') continue;
      messages += count(m.text ?? '');
      for (const c of m.toolCalls ?? []) messages += count(`${c.name}${c.arguments}`);
    }
  }
  return { total: system + tools + messages, system, tools, messages, encoding };
}

const ENCODINGS: readonly TokenEncoding[] = ['o200k_base', 'cl100k_base'];

export function toHavePromptTokensBelow(
  this: MatcherContext,
  received: unknown,
  limit: unknown,
  options?: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHavePromptTokensBelow', undefined, 'limit', {
    isNot: this.isNot,
    promise: this.promise,
    secondArgument: options === undefined ? undefined : 'options',
  });
  if (typeof limit !== 'number' || !(limit > 0))
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('limit')} must be a positive number`,
        printWithType('limit', limit, printReceived),
      ),
    );
  const o = (options ?? {}) as PromptTokenOptions;
  if (
    typeof o !== 'object' ||
    (o.encoding !== undefined && !ENCODINGS.includes(o.encoding)) ||
    (o.scope !== undefined && o.scope !== 'request' && o.scope !== 'system+tools')
  )
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('options')} must be { encoding?: ${ENCODINGS.map((e) => `"${e}"`).join(' | ')}, scope?: "request" | "system+tools" }`,
        printWithType('options', options, printReceived),
      ),
    );
  const calls = callsOf(received, hint);
  const counted = calls.map((call, i) => ({ index: call.index ?? i, tokens: countPromptTokens(call, o) }));
  const largest = counted.reduce((a, b) => (b.tokens.total > a.tokens.total ? b : a));
  const pass = largest.tokens.total < limit;
  const t = largest.tokens;
  const where =
    calls.length > 1
      ? `the largest, model call ${largest.index} of ${calls.length}`
      : `model call ${largest.index}`;
  return {
    pass,
    message: () =>
      `${hint}\n\nExpected prompt tokens: ${pass ? 'not ' : ''}below ${EXPECTED_COLOR(String(limit))}\n` +
      `Received prompt tokens: ${RECEIVED_COLOR(String(t.total))} (${where}; system ${t.system}, tools ${t.tools}, messages ${t.messages}; ${t.encoding})`,
  };
}
