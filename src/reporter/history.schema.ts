/**
 * THE JSON Schema of one line of `.understudy/history.jsonl`: what one test file's tests did in
 * one run. The reporter writes these lines and reads back only lines that pass it; any other
 * line in the file is not its own and stays as it is. `schemas/history.schema.json` is
 * generated from this module by scripts/write-schemas.mjs.
 *
 * Only `import type` here (the schema script loads this file with Node's type stripping).
 */
import type { JsonSchema } from '../file-format/json-schema';

export const HISTORY_FORMAT = 'jest-understudy/history@1';

export const historySchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'jest-understudy test history record',
  description:
    'One line of .understudy/history.jsonl: the results of one test file in one run. Lines from shards and branches can be concatenated; duplicates (same run and file) count once.',
  type: 'object',
  properties: {
    format: {
      type: 'string',
      enum: [HISTORY_FORMAT],
      description: 'Marks the line as written by jest-understudy.',
    },
    run: { type: 'string', minLength: 1, description: 'A random id of the Jest run (one per reporter).' },
    at: { type: 'string', minLength: 1, description: 'When the run ended (ISO 8601).' },
    file: {
      type: 'string',
      minLength: 1,
      description: 'The test file, relative to the rootDir, with / separators.',
    },
    code: {
      type: 'string',
      minLength: 1,
      description:
        "What the file's tests ran: a digest of the test file and of the fixture, world, golden and cassette files it loaded. A test is flaky when it failed and passed under the same code.",
    },
    tests: {
      type: 'array',
      description: 'The tests of the file that ran.',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, description: 'describe › … › test' },
          status: {
            type: 'string',
            enum: ['passed', 'failed', 'flaky'],
            description: '`flaky`: passed only on a retry (Jest retryTimes).',
          },
          quarantined: { type: 'boolean', description: 'The test was in the quarantine list.' },
        },
        required: ['name', 'status'],
        additionalProperties: false,
      },
    },
  },
  required: ['format', 'run', 'at', 'file', 'tests'],
  additionalProperties: false,
};
