// The agent of the start-up cases: one Chat Completions call on the official OpenAI SDK asking to
// refund order A1; the reply's text is the run's final message. It loads nothing of jest-understudy.
const OpenAI = require('openai');

async function refundA1() {
  const client = new OpenAI({ maxRetries: 0 });
  const completion = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'refund A1' }],
  });
  return completion.choices[0].message.content;
}

module.exports = { refundA1 };
