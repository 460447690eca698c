/**
 * A served child's late calls: a child started in a test (with the URLs read in the test, or in
 * a run) whose call arrives after that test ended fails the file, never the test running then,
 * which sees only its own calls.
 */
const { execFile } = require('node:child_process');
const { join } = require('node:path');
const { afterAll, expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { script, understudy } = require('jest-understudy');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const children = [];

/** Starts the child agent (not awaited by the test that starts it: it outlives it). */
function startChild(env, delay, question) {
  const done = new Promise((resolve) =>
    execFile(
      process.execPath,
      [join(__dirname, 'ownership-child.cjs'), String(delay), question],
      { env: { ...process.env, ...env } },
      (_error, stdout) => resolve(stdout.trim()),
    ),
  );
  children.push(done);
  return done;
}

afterAll(() => Promise.all(children));

/** A run of its own in this process, long enough for a late child call to arrive in it. */
async function ownRun() {
  understudy.model.use(script().user('hello').replies('hi there'));
  const run = await understudy.run(async () => {
    const completion = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
    });
    await sleep(1500);
    return completion.choices[0].message.content;
  });
  expect(run.modelCalls).toHaveLength(1);
  expect(understudy.model.calls).toHaveLength(1);
  expect(run).toHaveFinalMessage('hi there');
}

it('test 1: starts a child with the URLs read in the test, and ends before its call', async () => {
  const served = await understudy.serve();
  startChild(served.env, 400, 'hello');
});

it('test 2: runs while the child of test 1 calls, and sees only its own calls', ownRun);

it('test 3: starts a child inside a run, which outlives the run and the test', async () => {
  const served = await understudy.serve();
  await understudy.run(() => {
    startChild(served.env, 400, 'hello');
  });
});

it('test 4: runs while the child of test 3 calls, and sees only its own calls', ownRun);
