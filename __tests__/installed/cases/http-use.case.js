// understudy.http.use(...handlers) and the `handlers` option (the driver names ./msw/handlers.js):
// ordinary msw handlers, written with the user's own msw. A test's handlers answer until the test
// ends and before the option's; provider hosts stay the mock model's; the requests they answer are
// HTTP steps of the run's trace. The driver runs this in a network namespace with only loopback.
const { expect, it } = require('./runner-globals.cjs');
const { http, HttpResponse } = require('msw');
const OpenAI = require('openai');
const { script, understudy } = require('jest-understudy');

const WEATHER = 'https://weather.example.invalid/now';
const QUOTE = 'https://stocks.example.invalid/quote';

const swallowed = (promise) =>
  promise.then(
    () => 'answered',
    () => 'failed',
  );

it('the handlers option answers every test of the file', async () => {
  expect(await (await fetch(WEATHER)).json()).toEqual({ temp: 21 });
});

it("understudy.http.use answers in the test that adds it, before the option's handlers, and the run shows each request", async () => {
  understudy.http.use(
    http.get(QUOTE, () => HttpResponse.json({ price: 42 })),
    http.get(WEATHER, () => HttpResponse.json({ temp: 30 })),
  );
  understudy.model.use(script().user('quote?').replies('42, and 30 degrees.'));
  const client = new OpenAI();
  const run = await understudy.run(async () => {
    const { price } = await (await fetch(QUOTE)).json();
    const { temp } = await (await fetch(WEATHER)).json();
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'quote?' }],
    });
    return [price, temp];
  });
  expect(run.output).toEqual([42, 30]);
  expect(run).toHaveFinalMessage('42, and 30 degrees.');
  expect(run.trace.filter((span) => span.name.startsWith('http ')).map((span) => span.name)).toEqual([
    `http GET ${QUOTE}`,
    `http GET ${WEATHER}`,
  ]);
});

it("a handler for a provider host does not take the mock model's place", async () => {
  understudy.http.use(
    http.post('https://api.openai.com/v1/chat/completions', () => HttpResponse.json({ from: 'msw' })),
  );
  understudy.model.use(script().user('hi').replies('from the model'));
  const reply = await new OpenAI().chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
  });
  expect(reply.choices[0].message.content).toBe('from the model');
});

// Must fail: the previous test's handlers were reset when it ended (the option's answer again).
it('the next test: fetch to the host only an earlier test handled', async () => {
  expect(await (await fetch(WEATHER)).json()).toEqual({ temp: 21 });
  expect(await swallowed(fetch(QUOTE))).toBe('failed');
});
