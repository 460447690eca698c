// An agent that swallows every error, as many do: a test that only looks at its output passes
// whatever happened to its model calls, unless the test tool itself fails the test.
const OpenAI = require('openai');

async function forgivingAgent(question) {
  try {
    const client = new OpenAI({ maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: question }],
    });
    return reply.choices[0].message.content ?? 'fallback';
  } catch {
    return 'fallback';
  }
}

module.exports = { forgivingAgent };
