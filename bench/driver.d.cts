import type { Fixture } from 'jest-understudy';
import type OpenAI from 'openai';

export interface Variant {
  id: 'tools/json' | 'tools/sse' | 'content/json' | 'content/sse';
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

export declare const URL: string;
export declare const MODEL: string;
export declare const API_KEY: string;
export declare const VARIANTS: Variant[];
export declare const DEFAULT_PLAN: Plan;
export declare function paramsFor(variant: Variant): Record<string, unknown>;
export declare function understudyFixtures(): Fixture[];
export declare function makeCall(client: OpenAI, variant: Variant): () => Promise<unknown>;
export declare function summarize(client: OpenAI, variant: Variant): Promise<Summary>;
export declare function measure<K extends string>(
  calls: Record<K, () => Promise<unknown>>,
  plan: Plan,
): Promise<{ wall: Record<K, number[]>; cpu: Record<K, number[]> }>;
