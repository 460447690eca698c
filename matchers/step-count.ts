/**
 * `toHaveStepCount(bounds)`: how many steps the run took, a step being one model call (one
 * turn of the agent loop, as the Vercel AI SDK's `stepCountIs` counts them). A failure lists
 * each step: what the model asked for, said, or failed with.
 */
import type { MatcherContext, SyncExpectationResult } from 'expect';
import { parseBounds, rangeText, within } from './bounds';
import { assertRunLike, matcherError } from './guards';
import { matcherErrorMessage, printReceived, printWithType, RECEIVED_COLOR } from './matcher-utils';

interface StepLike {
  response?: { content?: string | null; toolCalls?: ReadonlyArray<{ name: string }> };
  error?: { status?: number; message?: string };
  unmatched?: boolean;
  conversation?: { model?: string };
}

export function toHaveStepCount(
  this: MatcherContext,
  received: unknown,
  expected: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveStepCount', undefined, 'expected', {
    isNot: this.isNot,
    promise: this.promise,
  });
  assertRunLike(received, hint);
  const steps = received.modelCalls;
  if (!Array.isArray(steps)) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${RECEIVED_COLOR('received')} must have a modelCalls array (a Run from understudy.run or a harness)`,
        printWithType('Received', received, printReceived),
      ),
    );
  }
  const range = parseBounds(hint, 'expected', expected, true);
  const pass = within(steps.length, range);
  const wanted = rangeText(range, 'step');
  const list = (steps as StepLike[]).map((s, i) => `  ${i} ${stepLine(s)}`).join('\n');
  const got = `${steps.length} ${steps.length === 1 ? 'step' : 'steps'} (model calls)${steps.length > 0 ? `:\n${list}` : ''}`;
  return {
    pass,
    message: () =>
      pass
        ? `${hint}\n\nExpected: not ${wanted}\nReceived: ${got}`
        : `${hint}\n\nExpected: ${wanted} (model calls)\nReceived: ${got}`,
  };
}

function stepLine(step: StepLike): string {
  const model = step.conversation?.model ? `${step.conversation.model} ` : '';
  if (step.unmatched) return `${model}→ no fixture matched`;
  if (step.error) return `${model}→ error ${step.error.status ?? ''} ${step.error.message ?? ''}`.trimEnd();
  const tools = step.response?.toolCalls ?? [];
  if (tools.length > 0) return `${model}→ asks for ${tools.map((t) => t.name).join(', ')}`;
  const text = step.response?.content ?? '';
  return `${model}→ “${text.length > 60 ? `${text.slice(0, 59)}…` : text}”`;
}
