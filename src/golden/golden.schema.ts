/**
 * THE JSON Schema of a golden task file: scenario definitions as data, shared by the
 * Jest harness (`describeGoldenTasks`) and offline evaluation (`understudy golden export`).
 * `schemas/golden.schema.json` is generated from this module by scripts/write-schemas.mjs.
 *
 * Only `import type` here (the schema script loads this file with Node's type stripping).
 * Inline fixtures are checked by the fixture schema itself after this one passes.
 */
import type { JsonSchema } from '../file-format/json-schema';

const string = (description: string) => ({ type: 'string', description });

const textPattern: JsonSchema = {
  title: '{ regex, flags? }',
  description: 'A regular expression, as `new RegExp(regex, flags)`.',
  type: 'object',
  properties: {
    regex: string('The pattern source.'),
    flags: { type: 'string', pattern: '^[dgimsuvy]*$', description: 'RegExp flags, e.g. "i".' },
  },
  required: ['regex'],
  additionalProperties: false,
};

const step: JsonSchema = {
  title: 'a tool name or { name, args? }',
  description: 'One expected tool call: its name, and optionally arguments (compared by the `args` mode).',
  anyOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, description: 'The tool name.' },
        args: { type: 'object', description: 'Expected arguments.' },
      },
      required: ['name'],
      additionalProperties: false,
    },
  ],
};

const steps = (description: string, minItems = 0): JsonSchema => ({
  type: 'array',
  description,
  items: step,
  ...(minItems > 0 && { minItems }),
});

const fixtures: JsonSchema = {
  description:
    'Model fixtures for the task: a fixture file path (relative to this file), several paths, or the fixtures inline (validated like a fixture file).',
  anyOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', items: { type: ['string', 'object'] } },
  ],
};

const trajectory: JsonSchema = {
  description:
    'The tool calls the agent must make: a list of steps (exact order), or { steps, mode, args } as for toHaveCalledToolSequence.',
  anyOf: [
    steps('The steps, in order (mode "exact").'),
    {
      type: 'object',
      properties: {
        steps: steps('The expected steps.'),
        mode: {
          type: 'string',
          enum: ['exact', 'ordered', 'unordered', 'contains', 'within', 'subset', 'superset'],
          description:
            'How the steps relate to the calls (default "exact"); "subset" is "contains" and "superset" is "within" (docs/matcher-modes.md).',
        },
        args: {
          type: 'string',
          enum: ['contains', 'exact', 'ignore', 'within', 'subset', 'superset'],
          description:
            'How expected args are compared (default "subset", which is "contains"; "superset" is "within").',
        },
      },
      required: ['steps'],
      additionalProperties: false,
    },
  ],
};

const expectations: JsonSchema = {
  title: 'expect',
  description: 'What the run must show.',
  type: 'object',
  properties: {
    trajectory,
    finalMessage: {
      description: 'The final assistant message: a substring, or { regex, flags? }.',
      anyOf: [{ type: 'string' }, textPattern],
    },
    terminalState: string(
      'How the run must end: "succeeded", "failed", "errored", "timed_out", or a state of your own.',
    ),
  },
  additionalProperties: false,
};

const negative: JsonSchema = {
  title: 'negative',
  description: 'What must never happen in the run.',
  type: 'object',
  properties: {
    neverCalls: steps('Tools that must never run (with args: never with those arguments).'),
    forbiddenOrders: {
      type: 'array',
      description:
        'Orders that must not occur: each is a list of steps that must not appear in this order (other calls may come between), e.g. [rollback, verify_healthcheck].',
      items: steps('Steps that must not occur in this order.', 2),
    },
  },
  additionalProperties: false,
};

const task: JsonSchema = {
  title: '{ id, input, expect?, negative? }',
  description: 'One scenario: the input the agent gets, what it must and must not do.',
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1, description: 'Unique in the file; names the Jest test.' },
    description: string('What the scenario checks, for people (appended to the test name).'),
    tags: { type: 'array', items: { type: 'string' }, description: 'Free-form labels (kept in the export).' },
    input: { description: 'What the agent receives as input: text or any JSON value.' },
    fixtures,
    world: string(
      'A world file for the task (relative to this file); passed through until worlds are loaded.',
    ),
    scenario: {
      description:
        'A scenario of the world: its name, or an inline scenario; passed through to the agent and setup.',
      type: ['string', 'object'],
    },
    timeoutMs: { type: 'number', exclusiveMinimum: 0, description: 'Deadline of the run, in milliseconds.' },
    expect: expectations,
    negative,
    metadata: { type: 'object', description: 'Free-form data for evaluation tools (kept in the export).' },
  },
  required: ['id', 'input'],
  additionalProperties: false,
};

export const goldenSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'jest-understudy golden task file',
  description:
    'Scenario definitions as data: `{ tasks: [...] }`, each with an input, fixtures, expected trajectory, final message, terminal state and negative cases.',
  type: 'object',
  properties: {
    $schema: string(
      'Where editors find this schema, e.g. "./node_modules/jest-understudy/schemas/golden.schema.json".',
    ),
    $comment: string('A note for readers; ignored.'),
    description: string('What the file covers.'),
    fixtures: {
      ...fixtures,
      description: `${fixtures.description} Shared by every task, after the task's own.`,
    },
    world: string('Default world file for the tasks (relative to this file).'),
    tasks: { type: 'array', minItems: 1, items: task, description: 'The tasks; each becomes one Jest test.' },
  },
  patternProperties: { '^x-': { description: 'Extension fields, ignored (a place for YAML anchors).' } },
  required: ['tasks'],
  additionalProperties: false,
};
