import type { Fixture } from 'jest-understudy';

export type Protocol = 'chat' | 'responses' | 'anthropic' | 'gemini';

export interface Variant {
  id: string;
  protocol: Protocol;
  reply: 'content' | 'tools';
  stream: boolean;
}

export interface Summary {
  content: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: unknown }>;
  finishReason: string | null;
}

export interface Plan {
  /** Untimed calls per target for every variant, before any variant is timed. */
  prewarm?: number;
  /** Untimed calls per target right before a variant is timed. */
  warmup: number;
  calls: number;
}

/** The SDK classes a client is built from (inside the Jest sandbox: the sandbox's own). */
export interface Sdks {
  OpenAI: new (options: any) => unknown;
  Anthropic: new (options: any) => unknown;
  GoogleGenAI: new (options: any) => unknown;
}

export type Fetch = (input: any, init?: any) => Promise<Response>;

export declare const URL: string;
export declare const MODEL: string;
export declare const API_KEY: string;
export declare const PROTOCOLS: Record<
  Protocol,
  { label: string; codec: string; url: string; model: string }
>;
export declare const VARIANTS: Variant[];
export declare const DEFAULT_PLAN: Plan;
export declare function paramsFor(variant: Variant): Record<string, unknown>;
export declare function createClient(
  protocol: Protocol,
  sdks: Sdks,
  options?: { fetch?: Fetch; origin?: string },
): unknown;
export declare function understudyFixtures(): Fixture[];
export declare function makeCall(client: unknown, variant: Variant): () => Promise<unknown>;
export declare function summarize(client: unknown, variant: Variant): Promise<Summary>;
export declare function measure<K extends string>(
  calls: Record<K, () => Promise<unknown>>,
  plan: Plan,
): Promise<{ wall: Record<K, number[]>; cpu: Record<K, number[]> }>;
/** The two canned replies, provider-neutral: the fixture key in the user message, and the response. */
export declare const REPLIES: Record<'content' | 'tools', { key: string; response: Record<string, unknown> }>;
