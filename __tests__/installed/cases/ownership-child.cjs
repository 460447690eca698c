// An agent in another process: waits, then asks the served model once with the official openai
// SDK (OPENAI_BASE_URL from served.env), and prints what it got.
const OpenAI = require('openai');

const [delay, question] = process.argv.slice(2);
setTimeout(async () => {
  try {
    const completion = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: question }],
    });
    console.log(`answered ${completion.choices[0].message.content}`);
  } catch (error) {
    console.log(`failed ${error.status}`);
  }
}, Number(delay));
