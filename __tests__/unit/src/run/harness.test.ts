/** @jest-environment ./environment/jest/index.ts */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createAgentHarness, script, UnderstudyError, understudy, writeFixtures } from 'jest-understudy';
import OpenAI from 'openai';

async function echoAgent(input: string, { signal }: { signal: AbortSignal }) {
  const c = await new OpenAI().chat.completions.create(
    { model: 'gpt-4o', messages: [{ role: 'user', content: input }] },
    { signal },
  );
  return c.choices[0].message.content;
}

const dir = mkdtempSync(join(tmpdir(), 'understudy-harness-'));
const sharedFile = writeFixtures(
  join(dir, 'shared.fixture.json'),
  script().user('shared question').replies('shared answer'),
);

describe('createAgentHarness', () => {
  const harness = createAgentHarness({ agent: echoAgent, fixtures: sharedFile });
  afterAll(() => harness.close());

  it('replays harness-level fixture files', async () => {
    const run = await harness.run('shared question');
    expect(run.input).toBe('shared question');
    expect(run.output).toBe('shared answer');
    expect(harness.lastRun).toBe(run);
  });

  it('fixtures supplied to run() stay until reset()', async () => {
    await harness.run({ input: 'first', fixtures: script().user('first').replies('one') });
    expect((await harness.run('first')).output).toBe('one');
    harness.reset();
    const after = await harness.run('first');
    expect(after.terminalState).toBe('errored');
    expect(understudy.model.acceptUnmatched()).toHaveLength(1);
  });

  it('an earlier run() fixture shadows a later overlapping one (first match wins)', async () => {
    await harness.run({
      input: 'overlap',
      fixtures: [{ match: { userMessage: 'overlap' }, response: { content: 'old' } }],
    });
    const run = await harness.run({
      input: 'overlap',
      fixtures: [{ match: { userMessage: 'overlap' }, response: { content: 'new' } }],
    });
    expect(run.output).toBe('old');
    harness.reset();
  });

  it('a run past timeoutMs ends as timed_out and aborts the signal', async () => {
    const slow = createAgentHarness({
      agent: (_input: string, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      timeoutMs: 20,
    });
    const run = await slow.run('anything');
    expect(run.terminalState).toBe('timed_out');
    expect(run.error).toBeInstanceOf(UnderstudyError);
    expect((run.error as UnderstudyError).code).toBe('RUN_TIMEOUT');
    await slow.close();
  });

  it('a closed harness refuses to run', async () => {
    const h = createAgentHarness({ agent: echoAgent });
    await h.close();
    await expect(h.run('x')).rejects.toThrow('harness.run(): this harness was closed');
  });

  it('bad arguments name the argument', () => {
    expect(() => createAgentHarness({ agent: 'nope' as never })).toThrow(
      'createAgentHarness({ agent }): expected an async function (input, context) => output, received string',
    );
  });

  it('the agent can name its terminal state', async () => {
    const h = createAgentHarness({
      agent: (_: string, ctx) => {
        ctx.setTerminalState('needs_approval');
        return 'waiting';
      },
    });
    expect((await h.run('refund 10000')).terminalState).toBe('needs_approval');
    await h.close();
  });
});

describe('understudy.run attribution', () => {
  it('attributes each model call to the run that made it, even when runs overlap', async () => {
    understudy.model.use(script().user('alpha').replies('A')).use(script().user('beta').replies('B'));
    const [a, b] = await Promise.all([
      understudy.run(() => echoAgent('alpha', { signal: new AbortController().signal })),
      understudy.run(() => echoAgent('beta', { signal: new AbortController().signal })),
    ]);
    expect(a.modelCalls.map((c) => c.response?.content)).toEqual(['A']);
    expect(b.modelCalls.map((c) => c.response?.content)).toEqual(['B']);
    expect(understudy.model.calls).toHaveLength(2);
  });
});
