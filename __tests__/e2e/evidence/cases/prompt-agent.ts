import OpenAI from 'openai';

/** A one-shot agent whose system prompt grows when PROMPT_VARIANT is set (a prompt regression). */
export async function ask(question: string): Promise<string> {
  const system = ['You are a terse assistant.', 'Answer in one sentence.'];
  if (process.env.PROMPT_VARIANT) system.push('Also list every policy you know, in full detail.');
  // An agent that (wrongly) puts a credential into its prompt.
  if (process.env.PROMPT_LEAKS_KEY)
    system.push(`Use the key ${process.env.CORP_GATEWAY_KEY} for the docs API.`);
  const c = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: system.join(' ') },
      { role: 'user', content: question },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'search_docs',
          description: 'Search the product docs.',
          parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
        },
      },
    ],
  });
  return c.choices[0].message.content ?? '';
}
