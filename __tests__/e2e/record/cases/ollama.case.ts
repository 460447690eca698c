/** An agent loop on the `ollama` client, pointed at the fake upstream's /ollama root (recorded, then replayed). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { type Message, Ollama } from 'ollama';

const tools = [
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
    },
  },
];

async function turn(client: Ollama, messages: Message[], stream: boolean): Promise<Message> {
  if (!stream) return (await client.chat({ model: 'llama3.2', messages, tools })).message;
  const message: Message = { role: 'assistant', content: '', tool_calls: [] };
  for await (const part of await client.chat({ model: 'llama3.2', messages, tools, stream: true })) {
    message.content += part.message.content;
    message.tool_calls?.push(...(part.message.tool_calls ?? []));
  }
  return message;
}

for (const stream of [false, true])
  it(`ollama ${stream ? 'streamed' : 'plain'}: looks two orders up and answers`, async () => {
    const client = new Ollama({ host: `${process.env.UPSTREAM_URL ?? 'http://127.0.0.1:9'}/ollama` });
    const run = await understudy.run(async () => {
      const messages: Message[] = [
        { role: 'user', content: `ollama ${stream}: where are orders A-1001 and B-2002?` },
      ];
      for (let step = 0; step < 4; step++) {
        const message = await turn(client, messages, stream);
        messages.push(message);
        if (!message.tool_calls?.length) return message.content;
        for (const call of message.tool_calls) {
          const orderId = String(call.function.arguments.orderId ?? '');
          const status = orderId.startsWith('A') ? 'shipped' : 'packing';
          messages.push({
            role: 'tool',
            tool_name: call.function.name,
            content: JSON.stringify({ orderId, status }),
          });
        }
      }
      throw new Error('too many steps');
    });
    expect(run.error).toBeUndefined();
    expect(run.toolsCalled).toEqual(['lookup_order', 'lookup_order']);
    expect(run.output).toMatch(/shipped.*packing/);
    const dir = join(process.env.RUN_OUT ?? '.', process.env.CASE_PHASE ?? 'run');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `ollama-${stream}.json`),
      JSON.stringify({
        output: run.output,
        calls: run.toolCalls.map((c) => [c.id, c.name, c.arguments, c.result]),
      }),
    );
  });
