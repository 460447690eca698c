// The chat UI's agent, all in the page: it calls the OpenAI Chat Completions API with fetch and
// runs the model's tool calls against the task list's REST API, until the model answers.
const config = window.CHAT_CONFIG;
const TOOLS = [
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

const tools = {
  list_tasks: () => fetch(`${config.tasksURL}/tasks`),
  add_task: (args) =>
    fetch(`${config.tasksURL}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }),
};

const messages = [{ role: 'system', content: "You manage the user's task list." }];

function show(role, text) {
  const item = document.createElement('li');
  item.className = role;
  item.textContent = text;
  document.getElementById('log').append(item);
}

async function complete() {
  const response = await fetch(`${config.openaiURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${config.apiKey}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, tools: TOOLS }),
  });
  if (!response.ok) throw new Error(`the model answered ${response.status}`);
  return (await response.json()).choices[0].message;
}

async function send(text) {
  messages.push({ role: 'user', content: text });
  for (let step = 0; step < 6; step++) {
    const message = await complete();
    messages.push(message);
    if (!message.tool_calls?.length) return show('assistant', message.content);
    for (const call of message.tool_calls) {
      const tool = tools[call.function.name];
      const result = tool
        ? await (await tool(JSON.parse(call.function.arguments))).text()
        : JSON.stringify({ error: `no tool ${call.function.name}` });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
  show('error', 'the agent gave up');
}

document.getElementById('chat').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.getElementById('message');
  const text = input.value;
  input.value = '';
  show('user', text);
  send(text).catch((error) => show('error', String(error.message ?? error)));
});
