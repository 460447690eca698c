// A Mastra refunds agent, as a Mastra user writes it: an Agent with two tools made by createTool
// (zod input schemas) that reach the order desk through its client, its model named by Mastra's
// model router ('openai/…', 'anthropic/…', 'google/…') or given as an AI SDK provider's model. The
// Mastra cases under Jest (../mastra.case.mjs) and Vitest (mastra.test.mjs) import it, and so does
// the app that runs it in a process of its own (mastra-app.mjs); each option named for a wiring
// mistake makes the agent wrong in that one way.

import { openai } from '@ai-sdk/openai';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';

const ORDERS_URL = process.env.ORDERS_URL ?? 'https://orders.example.test/api';

/** The order desk's client, as production calls it (at ORDERS_URL); in process the tests replace its functions with mockTool. */
export const orders = {
  async lookup(id) {
    const response = await fetch(`${ORDERS_URL}/orders/${encodeURIComponent(id)}`);
    if (!response.ok) throw new Error(`order desk answered ${response.status}`);
    return response.json();
  },
  async refund(id) {
    const response = await fetch(`${ORDERS_URL}/orders/${encodeURIComponent(id)}/refund`, { method: 'POST' });
    if (!response.ok) throw new Error(`order desk answered ${response.status}`);
    return response.json();
  },
};

/** The models the cases run the agent on: three through Mastra's model router, one an AI SDK model. */
export const MODELS = {
  'openai (router, Responses API)': () => 'openai/gpt-4o-mini',
  'openai (AI SDK provider, Chat Completions)': () => openai.chat('gpt-4o-mini'),
  'anthropic (router, Messages API)': () => 'anthropic/claude-sonnet-4-5',
  'google (router, Gemini API)': () => 'google/gemini-2.5-flash',
};

/**
 * The refunds agent. The mistakes: `camelCaseTools` registers the tools under camelCase keys (the
 * key is the name the model sees), `lowercaseIds` lower-cases the order id in the refund tool's
 * schema (the world gets another id than the model sent), `approveRefunds` makes the refund wait
 * for an approval nobody gives.
 */
export function refundsAgent({
  model = MODELS['openai (router, Responses API)'](),
  camelCaseTools = false,
  lowercaseIds = false,
  approveRefunds = false,
} = {}) {
  const lookupOrder = createTool({
    id: 'lookup_order',
    description: 'Look an order up by its id',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => orders.lookup(id),
  });
  const refundOrder = createTool({
    id: 'refund_order',
    description: 'Refund an order by its id',
    inputSchema: z.object({ id: lowercaseIds ? z.string().toLowerCase() : z.string() }),
    requireApproval: approveRefunds,
    execute: async ({ id }) => orders.refund(id),
  });
  return new Agent({
    id: 'refunds',
    name: 'Refunds',
    instructions: 'Look the order up, then refund it, then say what was refunded.',
    model,
    tools: camelCaseTools
      ? { lookupOrder, refundOrder }
      : { lookup_order: lookupOrder, refund_order: refundOrder },
  });
}

/** Asks the agent, with agent.generate or agent.stream (reading its text stream); resolves to its text. */
export async function ask(agent, text, { stream = false, maxSteps } = {}) {
  const options = maxSteps === undefined ? {} : { maxSteps };
  if (!stream) return (await agent.generate(text, options)).text;
  const output = await agent.stream(text, options);
  let said = '';
  for await (const chunk of output.textStream) said += chunk;
  return said;
}
