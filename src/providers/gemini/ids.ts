import type { ConversationStore, NeutralToolCall } from '../../conversation';
import { argumentsObject } from '../partial-json';

/**
 * Gemini function calls may come back without an `id` (a client that rebuilds `contents`
 * from names and args, as older samples do), and Ollama's clients send back ids of their own
 * making, or none. The reply put each call's neutral id on the wire and remembered it under the
 * call's place in the thread (`space`: the protocol's), so the request that comes back maps to
 * the same id and a Run links the call to its result.
 */
export function callKey(
  turn: number,
  userMessage: string | null,
  index: number,
  name: string,
  args: string,
  space = 'gemini.functionCall',
): string {
  return `${space}\u0000${turn}\u0000${userMessage ?? ''}\u0000${index}\u0000${name}\u0000${args}`;
}

export function rememberCall(
  store: ConversationStore,
  turn: number,
  userMessage: string | null,
  index: number,
  call: NeutralToolCall,
  space?: string,
): void {
  const key = callKey(turn, userMessage, index, call.name, JSON.stringify(argsObject(call.arguments)), space);
  store.set(key, [{ role: 'assistant', text: null, toolCalls: [call] }]);
}

export function recallCall(
  store: ConversationStore,
  turn: number,
  userMessage: string | null,
  index: number,
  name: string,
  args: string,
  space?: string,
): string | undefined {
  const call = store.get(callKey(turn, userMessage, index, name, args, space))?.[0]?.toolCalls?.[0];
  return call && call.name === name ? call.id : undefined;
}

/** The id of a call that carries none and was not sent by this file: its turn and place in it. */
export function derivedCallId(turn: number, index: number): string {
  return `call_gemini_t${turn}_${index}`;
}

/**
 * `args` is a JSON object on the wire: arguments cut off by the token limit keep their whole
 * values, a fixture's non-object arguments become `{}`.
 */
export const argsObject = argumentsObject;
