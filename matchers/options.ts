import { suggestName } from '../src/file-format/suggest';
import { isAsymmetricMatcher, matcherError } from './guards';
import { EXPECTED_COLOR, matcherErrorMessage, printExpected, printWithType } from './matcher-utils';
import { ARGS_MODES, type ArgsMatch, resolveMode, TRAJECTORY_MODES, type TrajectoryMatch } from './modes';
import { expectedOutcome, parseOutcome } from './outcome';
import type {
  ArgsMode,
  OutcomeExpectation,
  ToolArgsComparison,
  TrajectoryMode,
  TrajectoryOptions,
} from './types';

export interface ExpectedStep {
  name: string;
  /** Absent when the step only names the tool: then any arguments match. */
  args?: unknown;
  hasArgs: boolean;
  /** How the call must have ended; absent: any way. */
  outcome?: OutcomeExpectation;
}

const OPTION_KEYS = ['mode', 'args', 'argsBy'];
const STEP_KEYS = ['name', 'args', 'outcome', 'code'];

const list = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

/** Other tools' names for our modes (agentevals' `strict`, promptfoo's `in_order` and `partial`). */
const FOREIGN_NAMES: Record<string, readonly string[]> = {
  strict: ['exact'],
  in_order: ['ordered'],
  inOrder: ['ordered'],
  any_order: ['unordered'],
  partial: ['contains'],
};

const meant = (value: unknown, allowed: readonly string[]) => {
  const name = typeof value === 'string' ? suggestName(value, allowed, FOREIGN_NAMES) : undefined;
  return name === undefined ? '' : `; did you mean "${name}"?`;
};

function usageError(hint: string, generic: string, label: string, value: unknown): Error {
  return matcherError(matcherErrorMessage(hint, generic, printWithType(label, value, printExpected)));
}

/** Normalizes `expected` to steps, rejecting shapes that would silently match too much. */
export function parseExpectedSteps(hint: string, expected: unknown): ExpectedStep[] {
  if (!Array.isArray(expected)) {
    throw usageError(
      hint,
      `${EXPECTED_COLOR('expected')} value must be an array of tool names or { name, args } objects`,
      'Expected',
      expected,
    );
  }
  return expected.map((item: unknown, index): ExpectedStep => {
    const label = `expected[${index}]`;
    if (typeof item === 'string' && item !== '') return { name: item, hasArgs: false };
    if (typeof item !== 'object' || item === null || typeof (item as { name?: unknown }).name !== 'string') {
      throw usageError(
        hint,
        `${EXPECTED_COLOR(label)} must be a tool name string or an object with a string name (and optional args)`,
        label,
        item,
      );
    }
    // A typo such as `arguments` would otherwise drop the args check without a word.
    const unknownKey = Object.keys(item).find((key) => !STEP_KEYS.includes(key));
    if (unknownKey !== undefined) {
      throw usageError(
        hint,
        `${EXPECTED_COLOR(label)} has unknown key "${unknownKey}"; allowed keys: ${list(STEP_KEYS)}`,
        label,
        item,
      );
    }
    const { name, args } = item as { name: string; args?: unknown };
    if (args !== undefined && (typeof args !== 'object' || args === null) && !isAsymmetricMatcher(args)) {
      throw usageError(
        hint,
        `${EXPECTED_COLOR(`${label}.args`)} must be an object or an asymmetric matcher`,
        `${label}.args`,
        args,
      );
    }
    const outcome = expectedOutcome(parseOutcome(hint, label, item as Record<string, unknown>));
    return { name, args, hasArgs: args !== undefined, ...(outcome && { outcome }) };
  });
}

export interface SequenceOptions {
  /** The mode as compared (older names resolved). */
  mode: TrajectoryMatch;
  args: ArgsMatch;
  argsBy: Record<string, ToolArgsComparison>;
  /** The modes as the caller wrote them, for messages. */
  written: { mode: TrajectoryMode; args: ArgsMode };
}

function parseArgsBy(hint: string, argsBy: unknown): Record<string, ToolArgsComparison> {
  if (argsBy === undefined) return {};
  if (typeof argsBy !== 'object' || argsBy === null || Array.isArray(argsBy)) {
    throw usageError(
      hint,
      `${EXPECTED_COLOR('options.argsBy')} must be an object of tool name → args mode, argument names or (actual, expected) => boolean`,
      'options.argsBy',
      argsBy,
    );
  }
  for (const [tool, how] of Object.entries(argsBy)) {
    const fine =
      typeof how === 'function' ||
      ARGS_MODES.includes(how as ArgsMode) ||
      (Array.isArray(how) && how.length > 0 && how.every((k) => typeof k === 'string' && k !== ''));
    if (!fine) {
      throw usageError(
        hint,
        `${EXPECTED_COLOR(`options.argsBy.${tool}`)} must be one of ${list(ARGS_MODES)}, a non-empty array of argument names, or a function (actual, expected) => boolean`,
        `options.argsBy.${tool}`,
        how,
      );
    }
  }
  return argsBy as Record<string, ToolArgsComparison>;
}

export function parseTrajectoryOptions(hint: string, options: unknown): SequenceOptions {
  if (options === undefined) return sequenceOptions('exact', 'subset', {});
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw usageError(
      hint,
      `${EXPECTED_COLOR('options')} must be an object like { mode, args, argsBy }`,
      'Options',
      options,
    );
  }
  const unknownKey = Object.keys(options).find((key) => !OPTION_KEYS.includes(key));
  if (unknownKey !== undefined) {
    throw usageError(
      hint,
      `${EXPECTED_COLOR('options')} has unknown key "${unknownKey}"; allowed keys: ${list(OPTION_KEYS)}`,
      'Options',
      options,
    );
  }
  const { mode = 'exact', args = 'subset', argsBy } = options as TrajectoryOptions & Record<string, unknown>;
  if (!TRAJECTORY_MODES.includes(mode as TrajectoryMode)) {
    throw usageError(
      hint,
      `${EXPECTED_COLOR('options.mode')} must be one of ${list(TRAJECTORY_MODES)}${meant(mode, TRAJECTORY_MODES)}`,
      'options.mode',
      mode,
    );
  }
  if (!ARGS_MODES.includes(args as ArgsMode)) {
    throw usageError(
      hint,
      `${EXPECTED_COLOR('options.args')} must be one of ${list(ARGS_MODES)}${meant(args, ARGS_MODES)}`,
      'options.args',
      args,
    );
  }
  return sequenceOptions(mode as TrajectoryMode, args as ArgsMode, parseArgsBy(hint, argsBy));
}

function sequenceOptions(
  mode: TrajectoryMode,
  args: ArgsMode,
  argsBy: Record<string, ToolArgsComparison>,
): SequenceOptions {
  return { mode: resolveMode(mode), args: resolveMode(args), argsBy, written: { mode, args } };
}
