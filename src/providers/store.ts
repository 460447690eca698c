import type { ConversationStore, NeutralMessage } from '../conversation';

/** Threads kept per test file, as a provider keeps stored responses for `previous_response_id`. */
export function createConversationStore(): ConversationStore {
  const threads = new Map<string, NeutralMessage[]>();
  return {
    get: (id) => threads.get(id),
    set: (id, messages) => {
      threads.set(id, messages);
    },
  };
}
