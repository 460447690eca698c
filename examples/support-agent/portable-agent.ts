/**
 * The support agent on the AI SDK, for a team that must run it on several providers: the same
 * prompt, tools and store as agent.ts, the provider's wire protocol chosen by the caller.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type LanguageModel, stepCountIs, tool } from 'ai';
import { MAX_STEPS, SYSTEM_PROMPT } from './agent';
import { executeTool, type OrderStore, TOOL_DEFINITIONS } from './tools';

export type SupportProtocol =
  | 'openai.chat'
  | 'openai.responses'
  | 'anthropic.messages'
  | 'gemini.generateContent';

/** The model behind each protocol (keys come from the environment in production). */
export function modelFor(protocol: string): LanguageModel {
  switch (protocol) {
    case 'openai.chat':
      return createOpenAI().chat('gpt-4o-mini');
    case 'openai.responses':
      return createOpenAI().responses('gpt-4o-mini');
    case 'anthropic.messages':
      return createAnthropic()('claude-sonnet-4-6');
    case 'gemini.generateContent':
      return createGoogleGenerativeAI()('gemini-2.5-flash');
    default:
      throw new Error(`the support agent does not run on ${protocol}`);
  }
}

export interface PortableOptions {
  protocol: string;
  store: OrderStore;
  maxSteps?: number;
}

/** Answers a customer's question on the given protocol's provider; returns the final reply. */
export async function runPortableSupportAgent(question: string, options: PortableOptions): Promise<string> {
  const { protocol, store, maxSteps = MAX_STEPS } = options;
  const tools = Object.fromEntries(
    TOOL_DEFINITIONS.map(({ function: f }) => [
      f.name,
      tool({
        description: f.description ?? '',
        inputSchema: jsonSchema<Record<string, unknown>>(f.parameters as object),
        execute: async (args: Record<string, unknown>) => {
          try {
            return await executeTool(store, f.name, args);
          } catch (error) {
            return { error: error instanceof Error ? error.message : String(error) };
          }
        },
      }),
    ]),
  );
  const result = await generateText({
    model: modelFor(protocol),
    system: SYSTEM_PROMPT,
    prompt: question,
    tools,
    stopWhen: stepCountIs(maxSteps),
  });
  return result.text;
}
