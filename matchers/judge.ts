import type { MatcherContext } from 'expect';
import { markError } from '../src/errors';
import type { JudgeSetting } from '../src/options';
import { askJudge } from '../src/sandbox/judge';
import { JUDGE_PROVIDERS } from '../src/sandbox/judge-wire';
import { getContext } from '../src/sandbox/runtime';
import { isPlainObject, matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printExpected,
  printReceived,
  printWithType,
  RECEIVED_COLOR,
} from './matcher-utils';

/** The judge of one `toSatisfyJudge` call, over the `judge` option. */
export type JudgeOptions = Partial<JudgeSetting>;

const OPTION_KEYS = ['provider', 'model', 'baseURL'];
/** How much of the judged text a failure message shows (the trace holds all of it). */
const SHOWN = 1500;

function judgedText(hint: string, received: unknown): string {
  if (typeof received === 'string') return received;
  const final = (received as { finalMessage?: unknown } | null)?.finalMessage;
  const isRun = typeof received === 'object' && received !== null && 'toolCalls' in received;
  if (isRun && typeof final === 'string') return final;
  throw matcherError(
    matcherErrorMessage(
      hint,
      isRun
        ? `${RECEIVED_COLOR('received')} run has no final message to judge (it ended without one)`
        : `${RECEIVED_COLOR('received')} value must be a text or a Run (its final message is judged)`,
      printWithType('Received', received, printReceived),
    ),
  );
}

function judgeOf(hint: string, options: unknown): JudgeSetting {
  if (options !== undefined && !isPlainObject(options))
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('options')} must be an object like { provider, model, baseURL }`,
        printWithType('options', options, printExpected),
      ),
    );
  const unknownKey = Object.keys(options ?? {}).find((key) => !OPTION_KEYS.includes(key));
  if (unknownKey !== undefined)
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('options')} has unknown key "${unknownKey}"; allowed keys: ${OPTION_KEYS.map((k) => `"${k}"`).join(', ')}`,
        printWithType('options', options, printExpected),
      ),
    );
  const judge = { ...getContext().options.judge, ...(options as JudgeOptions | undefined) };
  if (
    !JUDGE_PROVIDERS.includes(judge.provider as JudgeSetting['provider']) ||
    typeof judge.model !== 'string' ||
    judge.model === ''
  )
    throw matcherError(
      matcherErrorMessage(
        hint,
        `the judge needs a ${EXPECTED_COLOR('provider')} (${JUDGE_PROVIDERS.map((p) => `"${p}"`).join(', ')}) and a ${EXPECTED_COLOR('model')}: ` +
          "set the `judge` option ({ provider, model }) of jest-understudy, or pass them as this call's options",
        printWithType('judge', { provider: judge.provider, model: judge.model }, printReceived),
      ),
    );
  return judge as JudgeSetting;
}

const indent = (text: string) => text.replace(/^/gm, '  ');
const shown = (text: string) =>
  text.length > SHOWN ? `${text.slice(0, SHOWN)}… (${text.length} characters)` : text;

/**
 * A judge model finds the text (a string, or a run's final message) satisfies the rubric.
 * Its verdict is recorded in the test's cassette and replayed; a replay with no recorded
 * verdict fails, whatever `.not` says.
 */
export async function toSatisfyJudge(
  this: MatcherContext,
  received: unknown,
  rubric: unknown,
  options?: unknown,
): Promise<{ pass: boolean; message: () => string }> {
  const hint = this.utils.matcherHint('toSatisfyJudge', undefined, 'rubric', {
    isNot: this.isNot,
    promise: this.promise,
    secondArgument: options === undefined ? undefined : 'options',
  });
  if (typeof rubric !== 'string' || rubric.trim() === '')
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('rubric')} must be a non-empty string: what the text must do, in words`,
        printWithType('rubric', rubric, printExpected),
      ),
    );
  const text = judgedText(hint, received);
  const judge = judgeOf(hint, options);
  const outcome = await askJudge(judge, rubric, text);
  if (outcome.kind === 'missing')
    throw markError(new Error(`${hint}\n\n${outcome.message}`), 'JUDGE_NOT_RECORDED');
  if (outcome.kind === 'failed') throw markError(new Error(`${hint}\n\n${outcome.message}`), 'JUDGE_FAILED');
  const who = `${judge.provider} ${judge.model}`;
  const reasons =
    outcome.reasons.length === 0 ? '  (no reasons given)' : outcome.reasons.map((r) => `  - ${r}`).join('\n');
  return {
    pass: outcome.pass,
    message: () =>
      `${hint}\n\nExpected: the judge to find the text ${this.isNot ? 'does not satisfy' : 'satisfies'} the rubric\n` +
      `${indent(EXPECTED_COLOR(rubric))}\n\n` +
      `Received: the judge (${who}) answered ${RECEIVED_COLOR(outcome.pass ? 'pass' : 'fail')}, because:\n${reasons}\n\n` +
      `The judged text:\n${indent(shown(text))}`,
  };
}
