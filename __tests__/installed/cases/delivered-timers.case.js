// What was delivered, under Jest's fake timers: paced streams (chunkDelay on the injectable
// clock) still go out event by event as the test advances the clock, and the run holds what
// the agent received of them: cut short by the fixture, given up by the agent, or left unread
// when the agent returned.
const { afterEach, expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');
const { agents, TEXT } = require('./delivered-agents.js');

afterEach(() => {
  jest.useRealTimers();
});

const paced = (shaping) => [
  { match: {}, response: { content: TEXT, chunkSize: 4, chunkDelay: 1000, ...shaping } },
];

/** Starts the run under fake timers and advances the clock until it ends. */
async function runAdvancing(agent) {
  jest.useFakeTimers({ doNotFake: ['queueMicrotask'] });
  let run;
  understudy.run(agent).then((r) => {
    run = r;
  });
  for (let i = 0; i < 60 && run === undefined; i++) await jest.advanceTimersByTimeAsync(1000);
  expect(run).toBeDefined();
  return run;
}

it('a paced stream cut short by the fixture: the run holds the events that went out', async () => {
  understudy.model.use(paced({ truncateAfterChunks: 5 }));
  const run = await runAdvancing(() => agents['openai.chat']({ stream: true }));
  expect(run.modelCalls[0].cut).toEqual({ reason: 'truncated', delivered: 5, of: expect.any(Number) });
  expect(run.modelCalls[0].response.content).toBe(run.output.text);
  expect(run.output.text).toBe('It is 18 C in Pa');
  expect(run.terminalState).toBe('failed');
});

it('a paced stream the agent gives up on: the run holds what it read', async () => {
  understudy.model.use(paced({}));
  const run = await runAdvancing(() =>
    agents['anthropic.messages']({ stream: true, stopWhen: (g) => g.text.length >= 10 }),
  );
  expect(run.modelCalls[0].cut).toEqual(expect.objectContaining({ reason: 'aborted' }));
  expect(run.modelCalls[0].response.content).toBe(run.output.text);
  expect(run.output.text).toBe('It is 18 C i');
  expect(run.finalMessage).toBeUndefined();
});

it('a paced stream read to its end: whole, nothing cut', async () => {
  understudy.model.use(paced({}));
  const run = await runAdvancing(() => agents['gemini.generateContent']({ stream: true }));
  expect(run.output.text).toBe(TEXT);
  expect(run.modelCalls[0]).not.toHaveProperty('cut');
  expect(run).toHaveFinalMessage('storm is coming');
  expect(run).toHaveTerminalState('succeeded');
});

it('a stream the agent stopped reading before it returned is cut where it stood', async () => {
  understudy.model.use(paced({}));
  const run = await runAdvancing(async () => {
    const stream = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather?' }],
      stream: true,
    });
    // Reads two chunks through the raw body, then returns with the rest unread (no abort).
    const reader = stream.toReadableStream().getReader();
    await reader.read();
    await reader.read();
    return 'returned early';
  });
  const [call] = run.modelCalls;
  expect(call.cut).toEqual(expect.objectContaining({ reason: 'aborted' }));
  expect(call.cut.delivered).toBeLessThan(call.cut.of);
  expect(TEXT.startsWith(call.response?.content ?? '')).toBe(true);
  expect(call.response?.content).not.toBe(TEXT);
  expect(run.terminalState).toBe('failed');
});
