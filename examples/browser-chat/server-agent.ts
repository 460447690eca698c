/**
 * The server-side agent: the official OpenAI SDK in a tool loop whose tools call the task list's
 * REST API. In the test it runs in the test process, so its calls are served like any agent's.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

export const TASKS_URL = 'https://tasks.example.test/api';

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'list_tasks',
      description: 'List the tasks',
      parameters: { type: 'object', properties: {} },
    },
  },
  {
    type: 'function',
    function: {
      name: 'add_task',
      description: 'Add a task to the list',
      parameters: {
        type: 'object',
        properties: { title: { type: 'string' } },
        required: ['title'],
        additionalProperties: false,
      },
    },
  },
];

async function callTool(name: string, args: unknown): Promise<string> {
  if (name === 'list_tasks') return (await fetch(`${TASKS_URL}/tasks`)).text();
  if (name === 'add_task')
    return (
      await fetch(`${TASKS_URL}/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(args),
      })
    ).text();
  return JSON.stringify({ error: `no tool ${name}` });
}

export async function answer(message: string): Promise<string> {
  const client = new OpenAI();
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: "You manage the user's task list." },
    { role: 'user', content: message },
  ];
  for (let step = 0; step < 6; step++) {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS });
    const reply = completion.choices[0].message;
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.content ?? '';
    for (const call of reply.tool_calls) {
      if (call.type !== 'function') continue;
      const content = await callTool(call.function.name, JSON.parse(call.function.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  throw new Error('the agent gave up');
}
