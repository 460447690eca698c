/**
 * THE JSON Schema of `live-report.json`, the report `understudy live` writes to the trace folder:
 * per test, its pass rate and gate, the distinct trajectories with their counts, latency, token
 * and cost percentiles, and its drift from the cassette. The command validates each report
 * against it before writing; `schemas/live-report.schema.json` is generated from this module
 * by scripts/write-schemas.mjs, and ./report.ts's types follow it field by field.
 *
 * Only `import type` here (the schema script loads this file with Node's type stripping).
 */
import type { JsonSchema } from '../file-format/json-schema';

export const LIVE_REPORT_FORMAT = 'jest-understudy/live-report@1';

const count = { type: 'integer', minimum: 0 } as const;
const rate = { type: 'number', minimum: 0, maximum: 1 } as const;

const percentiles = (unit: string): JsonSchema => ({
  type: 'object',
  description: `Over the test's completed runs, in ${unit}: the median, the 90th percentile (nearest rank) and the largest.`,
  properties: { p50: { type: 'number' }, p90: { type: 'number' }, max: { type: 'number' } },
  required: ['p50', 'p90', 'max'],
  additionalProperties: false,
});

const trajectory: JsonSchema = {
  type: 'object',
  properties: {
    tools: {
      type: 'array',
      items: { type: 'string' },
      description: 'The tools the model asked for, in order.',
    },
    terminal: {
      type: 'string',
      description:
        "How the model ended: its last reply's finish reason (`stop`, `tool_calls`, `length`…), `refusal`, `cut`, `error:<status>`, or `no-call`.",
    },
  },
  required: ['tools', 'terminal'],
  additionalProperties: false,
};

export const liveReportSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'jest-understudy live report',
  description:
    'What `understudy live --repeat N` found: each selected test run N times against the real provider, its pass rate against its gate, its trajectories, and its drift from the recorded cassette.',
  type: 'object',
  properties: {
    format: { type: 'string', enum: [LIVE_REPORT_FORMAT] },
    at: { type: 'string', minLength: 1, description: 'When the run ended (ISO 8601).' },
    runner: { type: 'string', enum: ['jest', 'vitest'] },
    repeat: { type: 'integer', minimum: 1, description: 'The runs asked for each test (`--repeat`).' },
    repetitions: { ...count, description: 'The repetitions of the suite that started.' },
    minPassRate: {
      ...rate,
      description: 'The gate of the tests that set none of their own (`--min-pass-rate`).',
    },
    budget: {
      type: 'object',
      properties: {
        tokens: { ...count, description: '`--budget-tokens`' },
        usd: { type: 'number', minimum: 0, description: '`--budget-usd`' },
        spentTokens: count,
        spentUsd: {
          type: 'number',
          minimum: 0,
          description: 'For the calls the price table has a price for.',
        },
        unpriced: {
          type: 'array',
          items: { type: 'string' },
          description:
            'Models the price table has no price for: a --budget-usd cap stops at their first call.',
        },
        reached: {
          type: 'string',
          description: 'Which cap stopped the run, in words; absent when none did.',
        },
      },
      required: ['spentTokens', 'spentUsd', 'unpriced'],
      additionalProperties: false,
    },
    tests: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          file: {
            type: 'string',
            minLength: 1,
            description: 'The test file, relative to the folder the command ran in.',
          },
          name: { type: 'string', minLength: 1, description: 'describe > … > test' },
          runs: { ...count, description: 'Runs that completed.' },
          passed: count,
          failed: count,
          stopped: {
            ...count,
            description: 'Runs the budget stopped mid-test (not counted in the pass rate).',
          },
          notRun: { ...count, description: 'Runs asked for that never started (the budget ran out before).' },
          passRate: {
            anyOf: [rate, { type: 'null' }],
            description: 'passed / runs; null with no completed run.',
          },
          minPassRate: {
            ...rate,
            description: "The test's gate: `live(name, fn, { minPassRate })`, else `--min-pass-rate`.",
          },
          gate: { type: 'string', enum: ['passed', 'failed', 'not-run'] },
          trajectories: {
            type: 'array',
            description: 'The distinct trajectories of the completed runs, most frequent first.',
            items: {
              type: 'object',
              properties: { ...trajectory.properties, count: { type: 'integer', minimum: 1 } },
              required: ['tools', 'terminal', 'count'],
              additionalProperties: false,
            },
          },
          latencyMs: { anyOf: [percentiles('milliseconds (wall time of the test)'), { type: 'null' }] },
          tokens: { anyOf: [percentiles('tokens'), { type: 'null' }] },
          usd: {
            anyOf: [percentiles('US dollars'), { type: 'null' }],
            description: 'null when a model had no price, or with no completed run.',
          },
          drift: {
            type: 'object',
            description: "The completed runs' trajectories against the one the test's cassette recorded.",
            properties: {
              cassette: { type: 'string', description: 'Relative to the folder the command ran in.' },
              recorded: {
                anyOf: [trajectory, { type: 'null' }],
                description: 'null: the cassette has no recording of the test.',
              },
              score: {
                anyOf: [rate, { type: 'null' }],
                description:
                  '0: every run took the recorded path; 1: nothing in common. null with nothing to compare.',
              },
              changes: { type: 'array', items: { type: 'string' } },
              refreshed: { type: 'boolean', description: '`--refresh-above` re-recorded it.' },
            },
            required: ['cassette', 'recorded', 'score', 'changes'],
            additionalProperties: false,
          },
        },
        required: [
          'file',
          'name',
          'runs',
          'passed',
          'failed',
          'stopped',
          'notRun',
          'passRate',
          'minPassRate',
          'gate',
          'trajectories',
          'latencyMs',
          'tokens',
          'usd',
          'drift',
        ],
        additionalProperties: false,
      },
    },
    refresh: {
      type: 'object',
      description: '`--refresh-above`: the drifted tests re-recorded in record mode.',
      properties: {
        above: rate,
        tests: { type: 'array', items: { type: 'string' } },
        cassettes: { type: 'array', items: { type: 'string' } },
        exitCode: { type: 'integer' },
      },
      required: ['above', 'tests', 'cassettes', 'exitCode'],
      additionalProperties: false,
    },
    exitCode: {
      type: 'integer',
      description: '0 gates passed, 1 a gate failed, 3 the budget stopped the run first.',
    },
  },
  required: ['format', 'at', 'runner', 'repeat', 'repetitions', 'minPassRate', 'budget', 'tests', 'exitCode'],
  additionalProperties: false,
};
