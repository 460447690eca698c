import type { Conversation } from '../../conversation';

/**
 * Request settings a Responses API reply echoes back (`instructions`, `tools`,
 * `previous_response_id`, `store`…). The neutral conversation has no place for them, so
 * decode leaves them here, keyed by the conversation object it returns; encode reads them.
 * A conversation built by hand (no echo) gets the API's defaults.
 */
export interface RequestEcho {
  instructions: unknown;
  /** How many leading messages came from `instructions` (a chained request does not inherit them). */
  instructionMessages: number;
  previousResponseId: string | null;
  promptCacheKey: string | null;
  promptCacheRetention: string | null;
  safetyIdentifier: string | null;
  tools: unknown[];
  toolChoice: unknown;
  parallelToolCalls: boolean;
  /** `store: false` keeps the reply out of the store: it cannot be chained from. */
  store: boolean;
  /** `include: ['reasoning.encrypted_content']`: reasoning items carry their encrypted form. */
  encryptedReasoning?: boolean;
  temperature: number;
  frequencyPenalty: number;
  presencePenalty: number;
  topP: number;
  maxOutputTokens: number | null;
  maxToolCalls: number | null;
  reasoning: { effort: unknown; summary: unknown };
  serviceTier: string | null;
  text: unknown;
  truncation: unknown;
  topLogprobs: number;
  user: unknown;
  metadata: unknown;
  background: boolean;
}

const echoes = new WeakMap<Conversation, RequestEcho>();

export function rememberEcho(conversation: Conversation, echo: RequestEcho): void {
  echoes.set(conversation, echo);
}

export function echoOf(conversation: Conversation): RequestEcho {
  return (
    echoes.get(conversation) ?? {
      instructions: null,
      instructionMessages: 0,
      previousResponseId: null,
      promptCacheKey: null,
      promptCacheRetention: null,
      safetyIdentifier: null,
      tools: conversation.tools.map((t) => ({
        type: 'function',
        description: t.description ?? null,
        name: t.name,
        parameters: t.parameters ?? null,
        strict: true,
      })),
      toolChoice: 'auto',
      parallelToolCalls: true,
      store: true,
      temperature: 1,
      frequencyPenalty: 0,
      presencePenalty: 0,
      topP: 1,
      maxOutputTokens: null,
      maxToolCalls: null,
      reasoning: { effort: null, summary: null },
      serviceTier: null,
      text: { format: { type: 'text' }, verbosity: 'medium' },
      truncation: 'disabled',
      topLogprobs: 0,
      user: null,
      metadata: {},
      background: false,
    }
  );
}
