/**
 * A separate process for the standalone recorder test (record() blocks its caller): serves
 * the fake provider, waits for the recorder's URL, sends an agent's traffic through it —
 * plain and streamed — and asks it to stop. Usage: node -r scripts/register-ts.cjs recorder-driver.ts <dir>
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startFakeUpstream } from '../../support/fake-upstream';

async function main(dir: string): Promise<void> {
  const key = process.env.OPENAI_API_KEY ?? '';
  const upstream = await startFakeUpstream({ openai: key, anthropic: '', gemini: '' });
  writeFileSync(join(dir, 'upstream.url'), upstream.url);
  const urlFile = join(dir, 'recorder.url');
  for (let i = 0; i < 400 && !existsSync(urlFile); i++) await new Promise((r) => setTimeout(r, 25));
  const recorder = readFileSync(urlFile, 'utf8');
  const client = new OpenAI({ baseURL: `${recorder}/v1`, apiKey: key, maxRetries: 0 });
  const answers: string[] = [];
  for (const [question, stream] of [
    ['Where is order A-5005?', false],
    ['Where is order B-6006?', true],
  ] as const) {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'lookup_order', parameters: { type: 'object' } } },
    ];
    for (let step = 0; step < 3; step++) {
      const message = stream
        ? (await client.chat.completions.stream({ model: 'gpt-4o', messages, tools }).finalChatCompletion())
            .choices[0].message
        : (await client.chat.completions.create({ model: 'gpt-4o', messages, tools })).choices[0].message;
      messages.push(message as OpenAI.ChatCompletionMessageParam);
      if (!message.tool_calls?.length) {
        answers.push(message.content ?? '');
        break;
      }
      for (const call of message.tool_calls)
        messages.push({ role: 'tool', tool_call_id: call.id, content: '{"status":"delivered"}' });
    }
  }
  writeFileSync(join(dir, 'answers.json'), JSON.stringify(answers));
  await fetch(`${recorder}/__understudy/stop`, { method: 'POST' });
  await upstream.close();
}

main(process.argv[2]).catch((error) => {
  process.stderr.write(`driver: ${error?.stack ?? error}\n`);
  process.exit(1);
});
