import type { ConversationStore, NeutralError } from '../conversation';
import { CONTRACT_RULES, type ContractRule } from './rules';

/** A request (or a fixture's reply to it) the real API would not have let through. */
export interface Violation {
  rule: ContractRule;
  /** Where in the request: the message (or item, content) at fault, e.g. `messages[2]`. */
  at: string;
  /** Its index in the request's message list (`messages`, `input`, `contents`), when it is a message. */
  index?: number;
  /** What is wrong, in plain words, for the test failure. */
  problem: string;
  /** What the real API answers; absent when the request is fine and the fixture is at fault. */
  error?: NeutralError;
}

/** What a request check reads: the wire body as sent, and what the codec made of it. */
export interface RequestFacts {
  body: Record<string, any>;
  /** This file's stored threads and issued reasoning tokens. */
  store: ConversationStore;
  /**
   * The mock model is the only model this file talks to (replay), so a reasoning token it
   * did not issue is forged; in record-missing mode a real provider may have issued it.
   */
  soleIssuer: boolean;
  /** A request header (the `anthropic-beta` features a request turns on), when the transport has them. */
  header?: (name: string) => string | null;
}

export function violation(
  rule: ContractRule,
  at: string,
  problem: string,
  error?: NeutralError,
  index?: number,
): Violation {
  return { rule, at, problem, ...(error ? { error } : {}), ...(index !== undefined ? { index } : {}) };
}

/** The test failure: what broke which rule where, what the API answered, and how to opt out. */
export function describeViolation(v: Violation, what: string): string {
  const lines = [
    v.error
      ? `jest-understudy: ${what} breaks the provider's request contract, so the real API would reject it.`
      : `jest-understudy: the fixture that answered ${what} sends what the real API never would.`,
    `  Rule: ${v.rule} (${CONTRACT_RULES[v.rule]})`,
    `  At: ${v.at}${v.index !== undefined ? ` (message index ${v.index})` : ''}`,
    `  Problem: ${v.problem}`,
  ];
  if (v.error)
    lines.push(
      `  The mock answered as the API does: ${v.error.status} ${v.error.type}: ${v.error.message.trim()}`,
    );
  else lines.push('  The reply went out unchanged; fix the fixture.');
  lines.push(
    `  To allow it, turn the rule off: testEnvironmentOptions.understudy.contracts: { "${v.rule}": false }, ` +
      `or understudy.model.contracts({ '${v.rule}': false }) in the file or the test.`,
  );
  return lines.join('\n');
}
