// An agent in another process for the serve-mode tests: the official OpenAI SDK, configured
// only by the environment the test passes (OPENAI_BASE_URL, OPENAI_API_KEY).
//   node child-agent.cjs ask "<question>"       prints the model's answer
//   node child-agent.cjs swallow "<question>"   the same, but any error becomes "fallback" (exit 0)
//   node child-agent.cjs get <url>              GET url, prints the status (a 404 is swallowed)
//   node child-agent.cjs late "<question>"      swallow, after 300 ms (a child that outlives its run)
//   node child-agent.cjs stream "<question>"    streams the answer: prints the deltas joined
const OpenAI = require('openai').default ?? require('openai');

async function ask(question) {
  const client = new OpenAI({ maxRetries: 0 });
  const completion = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: question }],
  });
  return completion.choices[0].message.content;
}

async function stream(question) {
  const client = new OpenAI({ maxRetries: 0 });
  const events = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: question }],
    stream: true,
  });
  let text = '';
  for await (const event of events) text += event.choices[0]?.delta?.content ?? '';
  return text;
}

async function main() {
  const [mode, arg] = process.argv.slice(2);
  if (mode === 'ask') return ask(arg);
  if (mode === 'swallow') return ask(arg).catch(() => 'fallback');
  if (mode === 'late') {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return ask(arg).catch(() => 'fallback');
  }
  if (mode === 'stream') return stream(arg);
  if (mode === 'get') return String((await fetch(arg)).status);
  throw new Error(`unknown mode ${mode}`);
}

main().then(
  (out) => process.stdout.write(`${out}\n`),
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exitCode = 1;
  },
);
