import type { Conversation, ConversationStore, NeutralMessage, NeutralTool } from '../../conversation';

/**
 * Message threads (the `message-threads-2026-08-12` beta, which the SDK's tool runner uses by
 * default): `thread: { type: 'create' }` asks the server to hold the conversation under the
 * reply's id, and `thread: { type: 'continue', previous_message_id }` sends only the new
 * messages, without `system` and `tools`. The codec keeps such threads in the per-file store.
 */

/** Conversations whose request asked for a thread, so their reply must be stored. */
const threaded = new WeakSet<Conversation>();

export function markThreaded(conversation: Conversation): void {
  threaded.add(conversation);
}

export function isThreaded(conversation: Conversation): boolean {
  return threaded.has(conversation);
}

const messagesKey = (id: string) => `anthropic.thread:${id}`;
// The store holds messages only: the tools travel as the opaque items of a placeholder message.
const toolsKey = (id: string) => `anthropic.thread-tools:${id}`;

export interface StoredThread {
  messages: NeutralMessage[];
  tools: NeutralTool[];
}

export function loadThread(store: ConversationStore, id: string): StoredThread | undefined {
  const messages = store.get(messagesKey(id));
  if (!messages) return undefined;
  const tools = (store.get(toolsKey(id))?.[0]?.opaque ?? []) as NeutralTool[];
  return { messages, tools };
}

export function saveThread(store: ConversationStore, id: string, thread: StoredThread): void {
  store.set(messagesKey(id), thread.messages);
  store.set(toolsKey(id), [{ role: 'system', text: null, opaque: thread.tools }]);
}
