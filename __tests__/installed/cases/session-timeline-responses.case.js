// A Responses API WebSocket-mode session whose trace the driver (session-timeline.test.ts) reads: a
// tool loop of three calls, then a second question on the same socket.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { ResponsesWS } = require('openai/resources/responses/ws');
const { understudy, script } = require('jest-understudy');

const QUESTION = 'What is the weather in Paris, and the time there?';
const ANSWER = 'It is 18°C in Paris, and 09:30.';
const results = {
  get_weather: { city: 'Paris', tempC: 18 },
  get_time: { tz: 'Europe/Paris', time: '09:30' },
};
const TOOLS = Object.keys(results).map((name) => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: {}, additionalProperties: true },
  strict: false,
}));

/** One response.create on the socket: resolves with the completed response. */
function create(socket, body) {
  return new Promise((resolve, reject) => {
    const done = (event) => {
      socket.off('response.completed', done);
      resolve(event.response);
    };
    socket.on('response.completed', done);
    socket.on('error', reject);
    socket.send({ type: 'response.create', model: 'gpt-4.1', tools: TOOLS, ...body });
  });
}

it('a tool loop over one socket, then a second question', async () => {
  understudy.model.use([
    ...script()
      .user(QUESTION)
      .callsTool('get_weather', { city: 'Paris' })
      .callsTool('get_time', { tz: 'Europe/Paris' })
      .replies(ANSWER)
      .build(),
    { match: { userMessage: 'And tomorrow?' }, response: { content: 'Rain tomorrow.' } },
  ]);
  const run = await understudy.run(async () => {
    const socket = new ResponsesWS(new OpenAI({ apiKey: 'sk-test', maxRetries: 0 }));
    const said = [];
    let response = await create(socket, { input: QUESTION });
    for (;;) {
      const calls = response.output.filter((item) => item.type === 'function_call');
      if (calls.length === 0) break;
      response = await create(socket, {
        previous_response_id: response.id,
        input: calls.map((call) => ({
          type: 'function_call_output',
          call_id: call.call_id,
          output: JSON.stringify(results[call.name]),
        })),
      });
    }
    said.push(response.output_text ?? response.output[0]?.content?.[0]?.text);
    response = await create(socket, {
      previous_response_id: response.id,
      input: [{ role: 'user', content: 'And tomorrow?' }],
    });
    said.push(response.output_text ?? response.output[0]?.content?.[0]?.text);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.close();
    await closed;
    return said;
  });
  expect(run.output).toEqual([ANSWER, 'Rain tomorrow.']);
  expect(run).toHaveCalledToolSequence(['get_weather', 'get_time']);
});
