/**
 * The output items a stored response issued, chained by `previous_response_id`: the codec
 * notes them as it encodes a reply, and the request contracts read them back to find items
 * a chained request repeats.
 */
import type { ConversationStore } from '../../conversation';

const itemsKey = (responseId: string) => `responses.items:${responseId}`;

/**
 * Keeps the ids of a stored response's output items and the response it chained from, so a
 * later request that chains from it can be checked for items the chain already holds.
 */
export function noteResponseItems(
  store: ConversationStore,
  responseId: string,
  previous: string | null,
  itemIds: string[],
): void {
  store.set(itemsKey(responseId), [{ role: 'assistant', text: JSON.stringify({ previous, itemIds }) }]);
}

/** Every output item id along the `previous_response_id` chain that ends at `responseId`. */
export function chainItemIds(store: ConversationStore, responseId: string): Set<string> {
  const ids = new Set<string>();
  const visited = new Set<string>();
  let next: string | null = responseId;
  while (next && !visited.has(next)) {
    visited.add(next);
    const text = store.get(itemsKey(next))?.[0]?.text;
    if (!text) break;
    const entry = JSON.parse(text) as { previous: string | null; itemIds: string[] };
    for (const id of entry.itemIds) ids.add(id);
    next = entry.previous;
  }
  return ids;
}
