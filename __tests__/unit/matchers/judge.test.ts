/**
 * toSatisfyJudge through a test file's model pipeline: judge fixtures answer the judge's call on
 * each provider's wire, the agent's fixtures never do, and the call is none of the run's.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { failureOf } from './helpers';

const JUDGE = 'jest-understudy-judge';
const verdict = (pass: boolean, reason: string) =>
  JSON.stringify({ verdict: pass ? 'pass' : 'fail', reasons: [reason] });
const judgeFixture = (rubricPart: string, content: string) => ({
  match: { context: JUDGE, systemMessage: rubricPart },
  response: { content },
});
const openai = { provider: 'openai', model: 'gpt-4o-mini' } as const;

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return stripVTControlCharacters(String((error as Error).message));
  }
  throw new Error('expected the assertion to fail');
}

async function agent(): Promise<string> {
  const response = await fetch('https://api.openai.com/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return (await response.json()).choices[0].message.content;
}

describe('toSatisfyJudge', () => {
  it("passes on a pass verdict, fails on a fail verdict with the judge's reasons and the text", async () => {
    understudy.model.use([
      { match: {}, response: { content: 'Thanks for writing!' } },
      judgeFixture('polite', verdict(true, 'it thanks the customer')),
      judgeFixture('invoice', verdict(false, 'no invoice is mentioned')),
    ]);
    const run = await understudy.run(agent);
    await expect(run).toSatisfyJudge('Must be polite', openai);
    await expect(run).not.toSatisfyJudge('Must mention the invoice', openai);
    const message = await rejection(expect(run).toSatisfyJudge('Must mention the invoice', openai));
    expect(message).toContain(
      'Received: the judge (openai gpt-4o-mini) answered fail, because:\n  - no invoice is mentioned',
    );
    expect(message).toContain('The judged text:\n  Thanks for writing!');
    // The judge's calls are the file's, marked, and none of the run's.
    expect(run.modelCalls).toHaveLength(1);
    expect(understudy.model.calls.filter((c) => c.judge)).toHaveLength(3);
    expect(
      understudy.model.calls.filter((c) => c.judge).every((c) => c.conversation.model === 'gpt-4o-mini'),
    ).toBe(true);
  });

  it("is never answered by the agent's fixtures, and fails with no verdict under .not too", async () => {
    understudy.model.use([{ match: {}, response: { content: 'anything' } }]);
    for (const assertion of [
      expect('some text').toSatisfyJudge('Must be polite', openai),
      expect('some text').not.toSatisfyJudge('Must be polite', openai),
    ]) {
      const message = await rejection(assertion);
      expect(message).toContain('no recorded verdict of the judge (openai gpt-4o-mini)');
      expect(message).toContain(
        `npx understudy record -- __tests__/unit/matchers/judge.test.ts -t "toSatisfyJudge is never answered`,
      );
    }
  });

  it('speaks Anthropic Messages and Gemini too', async () => {
    understudy.model.use([judgeFixture('concise', verdict(true, 'short'))]);
    await expect('Done.').toSatisfyJudge('Must be concise', {
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
    });
    await expect('Done.').toSatisfyJudge('Must be concise', {
      provider: 'gemini',
      model: 'gemini-2.5-flash',
    });
    expect(understudy.model.calls.filter((c) => c.judge).map((c) => c.protocol)).toEqual([
      'anthropic.messages',
      'gemini.generateContent',
    ]);
  });

  it('fails an answer that is no verdict, and refuses a judge it cannot name', async () => {
    understudy.model.use([judgeFixture('polite', 'Looks fine to me.')]);
    const message = await rejection(expect('Hi').toSatisfyJudge('Must be polite', openai));
    expect(message).toContain('gave no verdict');
    expect(message).toContain('"Looks fine to me."');
    expect(await rejection(expect('Hi').toSatisfyJudge('Must be polite'))).toContain(
      'set the `judge` option ({ provider, model }) of jest-understudy',
    );
    expect(await rejection(expect('Hi').toSatisfyJudge('', openai))).toContain('must be a non-empty string');
    expect(await rejection(expect({ toolCalls: [] }).toSatisfyJudge('x', openai))).toContain(
      'run has no final message to judge',
    );
    expect(
      await rejection(expect('Hi').toSatisfyJudge('x', { ...openai, temperature: 0 } as never)),
    ).toContain('unknown key "temperature"');
  });

  it("times a replayed run on the replay clock: a fixture's latency, whatever the wall clock did", async () => {
    understudy.model.use([{ match: {}, latency: 250, response: { content: 'ok' } }]);
    const run = await understudy.run(agent);
    expect(run.modelCalls[0].simulatedMs).toBe(250);
    expect(run).toHaveLatencyBelow(251);
    expect(failureOf(() => expect(run).toHaveLatencyBelow(250))).toContain('Received: 250 ms, replay');
  });
});
