/**
 * What a recording was made against: a hash of the system prompt and one of the tool
 * manifest (names, descriptions, parameter schemas), so a replay can tell when either
 * changed since, and say which.
 */
import { createHash } from 'node:crypto';
import type { Conversation, NeutralTool } from '../conversation';

export type PromptFingerprint = {
  /** Hash of the system prompt and the tool manifest together. */
  promptHash: string;
  systemHash: string;
  toolsHash: string;
  /** Names of the tools offered, in the order the request listed them. */
  tools: string[];
};

export function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** JSON with object keys sorted, so the same schema always hashes the same. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function manifestOf(tools: readonly NeutralTool[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return canonical(
    sorted.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
  );
}

export function fingerprintOf(
  conversation: Conversation,
  normalize: (text: string) => string = (t) => t,
): PromptFingerprint {
  const system: string[] = [];
  for (const m of conversation.messages) if (m.role === 'system' && m.text !== null) system.push(m.text);
  const systemHash = hash(normalize(system.join('\n')));
  const toolsHash = hash(manifestOf(conversation.tools));
  return {
    promptHash: hash(`${systemHash}:${toolsHash}`),
    systemHash,
    toolsHash,
    tools: conversation.tools.map((t) => t.name),
  };
}

/** In words, what differs between the recorded fingerprint and the request's; empty when nothing does. */
export function describeDrift(recorded: Partial<PromptFingerprint>, now: PromptFingerprint): string[] {
  if (recorded.promptHash === now.promptHash) return [];
  const changes: string[] = [];
  if (recorded.systemHash !== undefined && recorded.systemHash !== now.systemHash)
    changes.push('the system prompt changed');
  if (recorded.toolsHash !== undefined && recorded.toolsHash !== now.toolsHash) {
    const before = new Set(recorded.tools ?? []);
    const after = new Set(now.tools);
    const added = now.tools.filter((t) => !before.has(t));
    const removed = [...before].filter((t) => !after.has(t));
    const parts: string[] = [];
    if (added.length > 0) parts.push(`added ${added.map((t) => JSON.stringify(t)).join(', ')}`);
    if (removed.length > 0) parts.push(`removed ${removed.map((t) => JSON.stringify(t)).join(', ')}`);
    changes.push(
      parts.length > 0 || recorded.tools === undefined
        ? `the tool manifest changed${parts.length > 0 ? ` (${parts.join('; ')})` : ''}`
        : 'the tool manifest changed (same tool names: a description or a parameter schema differs)',
    );
  }
  if (changes.length === 0) changes.push('the system prompt or the tool manifest changed');
  return changes;
}
