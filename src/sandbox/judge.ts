/**
 * `toSatisfyJudge`'s call: the judge's request goes through this file's model pipeline as any
 * model call does, marked so it belongs to no run and only a judge fixture answers it. Record
 * and live modes send it to the real judge (record mode keeps it in the test's cassette);
 * replay serves the recorded verdict, and says what to record when there is none.
 */
import { relative } from 'node:path';
import { JUDGE_HEADER } from '../conversation';
import type { ModelCall } from '../model/call';
import type { JudgeSetting } from '../options';
import { answerText, judgePrompt, judgeRequest, type Verdict, verdictOf } from './judge-wire';
import { getRuntime } from './runtime';

export type JudgeOutcome =
  | ({ kind: 'verdict'; answer: string; call: ModelCall | undefined } & Verdict)
  /** Replay had no recorded verdict: `message` says how to record one. */
  | { kind: 'missing'; message: string }
  /** The judge could not be asked or gave no verdict. */
  | { kind: 'failed'; message: string };

export async function askJudge(judge: JudgeSetting, rubric: string, text: string): Promise<JudgeOutcome> {
  const runtime = getRuntime();
  const { context } = runtime;
  const wire = judgeRequest(judge, judgePrompt(rubric, text), process.env);
  const before = context.model.calls.length;
  const pending = runtime.handleFetch(wire.url, {
    method: 'POST',
    headers: { ...wire.headers, [JUDGE_HEADER]: '1' },
    body: wire.body,
  });
  const who = `the judge (${judge.provider} ${judge.model})`;
  if (!pending)
    return {
      kind: 'failed',
      message:
        `${who} is served at ${wire.url}, which this test file does not intercept: ` +
        `add its base URL to the \`providers.${judge.provider}.baseURL\` option.`,
    };
  let response: Response;
  try {
    response = await pending;
  } catch (error) {
    return { kind: 'failed', message: `${who} could not be reached: ${(error as Error)?.message ?? error}` };
  }
  const call = context.model.calls.slice(before).find((c) => c.judge);
  const body = await response.text();
  if (call?.unmatched) {
    const { rootDir, testPath, mode } = context.options;
    // Jest's and Vitest's -t take the full name, spaced, as a pattern.
    const test = context.test
      ?.split(' > ')
      .join(' ')
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return {
      kind: 'missing',
      message:
        `${mode} mode has no recorded verdict of ${who} for this rubric and text in ${relative(rootDir, context.options.cassette)}: ` +
        "a judge's call is answered only by its recording. Record it with a key: " +
        `\`npx understudy record -- ${relative(rootDir, testPath)}${test ? ` -t "${test.replace(/["$`]/g, '\\$&')}"` : ''}\`` +
        ' (or write a judge fixture by hand: docs/matchers.md#judged-by-a-model).',
    };
  }
  if (!response.ok)
    return { kind: 'failed', message: `${who} answered ${response.status}: ${body.slice(0, 500)}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { kind: 'failed', message: `${who} answered with a body that is not JSON: ${body.slice(0, 200)}` };
  }
  const answer = answerText(judge.provider, parsed as Record<string, unknown>);
  const verdict = answer === undefined ? undefined : verdictOf(answer);
  if (answer === undefined || !verdict)
    return {
      kind: 'failed',
      message:
        `${who} gave no verdict: its answer should be a JSON object {"verdict": "pass" | "fail", "reasons": [...]}, ` +
        `and it was ${JSON.stringify((answer ?? body).slice(0, 500))}`,
    };
  return { kind: 'verdict', answer, call, ...verdict };
}
