/**
 * THE JSON Schema of `testEnvironmentOptions.understudy`: the environment validates the
 * options with it (every problem named by its option path), the `UnderstudyOptions` type is
 * checked against it at compile time, and `schemas/options.schema.json` (for editors and
 * docs) is generated from it by scripts/write-schemas.mjs.
 *
 * Only `import type` here: scripts/write-schemas.mjs loads this file with Node's type
 * stripping, which cannot resolve extensionless runtime imports.
 */
import type { ContractRule } from '../src/contracts/rules';
import type { ProviderId } from '../src/conversation';
import type { JsonSchema } from '../src/file-format/json-schema';
import type { DialectName } from '../src/fixtures/stream-dialects';
import type { ProviderOptionName, UnderstudyOptions } from '../src/options';

type Described<K extends PropertyKey> = Record<K, JsonSchema & { description: string }>;

const path = (description: string) => ({ type: 'string', minLength: 1, description });

const stringOrList = (description: string) => ({
  description,
  anyOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', items: { type: 'string', minLength: 1 } },
  ],
});

const provider = (name: string): JsonSchema => ({
  title: '{ baseURL }',
  type: 'object',
  description: `Where ${name} traffic is also served (a proxy, a gateway).`,
  properties: {
    baseURL: {
      ...stringOrList(
        `Extra base URL(s) of ${name} to intercept, absolute, e.g. "https://my-proxy.test/v1".`,
      ),
    },
  },
  additionalProperties: false,
});

const gateway = (name: string, defaults: string): JsonSchema => ({
  title: 'true | { baseURL }',
  description: `${name}, an OpenAI-compatible gateway: \`true\` serves it at ${defaults}, \`{ baseURL }\` at your address.`,
  anyOf: [{ type: 'boolean' }, provider(name)],
});

const providerOptions = {
  openai: provider('OpenAI'),
  anthropic: provider('Anthropic'),
  gemini: provider('Gemini'),
  bedrock: provider(
    'Amazon Bedrock Runtime (every `bedrock-runtime.{region}.amazonaws.com` is served already)',
  ),
  azure: provider(
    'Azure OpenAI: the endpoint followed by `/openai`, for a custom domain or an API gateway (every `{resource}.openai.azure.com` is served already)',
  ),
  vertex: provider('Vertex AI (every `{location}-aiplatform.googleapis.com` is served already)'),
  openrouter: provider('OpenRouter (`https://openrouter.ai/api/v1` is served already)'),
  ollama: gateway('Ollama', 'http://localhost:11434/v1 and its native API at http://localhost:11434'),
  litellm: gateway('A LiteLLM proxy', 'http://localhost:4000 (with or without /v1)'),
} satisfies Record<ProviderOptionName, JsonSchema>;

const CONTRACT_RULES = [
  'tool-results',
  'reasoning',
  'empty-text',
  'duplicate-ids',
  'tool-definitions',
  'known-models',
  'structured-output',
  'offered-tools',
  'parameters',
] as const satisfies readonly ContractRule[];
// A rule added in src/contracts/rules.ts and not listed above fails to compile here.
type Unlisted = Exclude<ContractRule, (typeof CONTRACT_RULES)[number]>;
const everyRuleListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyRuleListed;

// The fixture schema's dialect setting (src/fixtures/fixtures.schema.ts), repeated: this file may import types only.
const DIALECT_NAMES = [
  'empty-choices',
  'keep-alive',
  'interleaved-tool-calls',
  'whole-tool-calls',
  'empty-arguments',
  'whole-tool-input',
  'batched-function-calls',
  'reasoning-deltas',
] as const satisfies readonly DialectName[];
type UnlistedDialect = Exclude<DialectName, (typeof DIALECT_NAMES)[number]>;
const everyDialectListed: [UnlistedDialect] extends [never] ? true : UnlistedDialect = true;
void everyDialectListed;
const PRICED_PROVIDERS = [
  'openai',
  'anthropic',
  'gemini',
  'bedrock',
  'ollama',
] as const satisfies readonly ProviderId[];
type UnpricedProvider = Exclude<ProviderId, (typeof PRICED_PROVIDERS)[number]>;
const everyProviderListed: [UnpricedProvider] extends [never] ? true : UnpricedProvider = true;
void everyProviderListed;
const names = { type: 'array', items: { type: 'string', enum: DIALECT_NAMES }, uniqueItems: true };

const usd = (what: string) => ({ type: 'number', minimum: 0, description: `USD per million ${what}.` });
const rates = {
  input: usd('input tokens neither read from nor written to the prompt cache'),
  output: usd('output tokens (reasoning included unless `reasoning` is set)'),
  cachedInput: usd('input tokens read from the prompt cache (default: `input`)'),
  cacheWrite: usd('input tokens written to the prompt cache (default: `input`)'),
  reasoning: usd('reasoning tokens, where billed apart (default: `output`)'),
};
const modelPrice = {
  type: 'object',
  properties: {
    ...rates,
    longContext: {
      type: 'object',
      description:
        'A long-prompt tier: a request with more than `above` input tokens is billed at these rates.',
      properties: { above: { type: 'integer', minimum: 0 }, ...rates },
      required: ['above', 'input', 'output'],
      additionalProperties: false,
    },
  },
  required: ['input', 'output'],
  additionalProperties: false,
};
const modelPrices = { type: 'object', additionalProperties: modelPrice };

const properties = {
  world: path(
    'Default world file, relative to the Jest rootDir (a `@understudy-world` pragma overrides it).',
  ),
  fixtures: stringOrList(
    'Fixture files (globs allowed) registered for every test file, relative to the rootDir (a `@understudy-fixtures` pragma overrides them). A path that does not exist, or a glob that matches nothing, fails at start-up.',
  ),
  strictTurnIndex: {
    type: 'boolean',
    description:
      'Make a turnIndex mismatch a miss instead of a tolerated one. Also UNDERSTUDY_STRICT_TURN_INDEX=1.',
  },
  providers: {
    title: '{ openai?, anthropic?, gemini?, bedrock?, azure?, vertex?, openrouter?, ollama?, litellm? }',
    type: 'object',
    description:
      'Extra hosts to intercept, per provider, and provider presets: Azure OpenAI, Vertex AI and OpenAI-compatible gateways (OpenRouter, Ollama, LiteLLM).',
    properties: providerOptions,
    additionalProperties: false,
  },
  quarantine: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    description:
      'Tests that still run and are reported, but whose failure does not fail the run: each named `describe › test` (as in traces) or as Jest names it (`describe test`).',
  },
  history: {
    title: 'boolean | { path?, keep?, readyAfter? }',
    description:
      'The per-test history the reporter keeps for flake rates and the quarantine (default on, `.understudy/history.jsonl`); `false` keeps none.',
    anyOf: [
      { type: 'boolean' },
      {
        type: 'object',
        properties: {
          path: { type: 'string', minLength: 1, pattern: '\\.jsonl$' },
          keep: { type: 'integer', minimum: 2, maximum: 1000 },
          readyAfter: { type: 'integer', minimum: 1, maximum: 1000 },
        },
        additionalProperties: false,
      },
    ],
  },
  traceDir: {
    type: 'string',
    description:
      'Where traces and timelines of failing tests go, relative to the rootDir (default ".understudy/traces"). A folder of its own: the rootDir, a folder above it or one that holds test files is refused at start-up.',
  },
  traces: {
    type: 'string',
    enum: ['on-failure', 'always', 'off'],
    description:
      'When to write a trace and timeline: for failing tests (default), every test, or never. Also UNDERSTUDY_TRACES.',
  },
  timeScale: {
    type: 'number',
    minimum: 0,
    description:
      'With real timers, multiply simulated delays by this (0 = no waiting). Also UNDERSTUDY_TIME_SCALE.',
  },
  strictCassettes: {
    type: 'boolean',
    description:
      'Fail a test a stale cassette fixture answers (default: warn). Also UNDERSTUDY_STRICT_CASSETTES=1.',
  },
  cassetteDir: path(
    "Where record mode writes each test file's cassette: `<cassetteDir>/<test path below rootDir>.cassette.json` (default: `__cassettes__/` beside the test file).",
  ),
  cassetteFormat: {
    type: 'string',
    enum: ['json', 'yaml'],
    description:
      'The format of the cassettes record mode creates: `json` (default, `.cassette.json`) or `yaml` (`.cassette.yaml`). An existing cassette keeps its own.',
  },
  cassetteMaxAge: {
    type: 'string',
    pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h|d|w|y)\\s*$',
    description:
      'A cassette fixture recorded longer ago than this ("90d", "12h", "2w", "1y") is stale: it warns when it answers, and fails with strictCassettes (like Polly\'s `expiresIn`).',
  },
  redact: {
    title: '{ pii?: boolean | kind[] }',
    type: 'object',
    description:
      'What recording redacts besides secrets. `pii: true` (or a list of kinds) replaces personal data with stable placeholders (`<email-1>`) in the recorded request, the match keys and the answer; replay computes the same placeholders, so it still matches, and puts the live values back into the answer.',
    properties: {
      pii: {
        description: 'true for every kind, or the kinds: email, card, phone, ssn, iban, ip.',
        anyOf: [
          { type: 'boolean' },
          {
            type: 'array',
            items: { type: 'string', enum: ['email', 'card', 'phone', 'ssn', 'iban', 'ip'] },
            uniqueItems: true,
          },
        ],
      },
    },
    additionalProperties: false,
  },
  contracts: {
    title: 'boolean | { [rule]: boolean }',
    description:
      'Request contracts (default on): `false` turns them all off, an object turns single rules off or on, e.g. `{ "tool-results": false }`.',
    anyOf: [
      { type: 'boolean' },
      {
        type: 'object',
        properties: Object.fromEntries(CONTRACT_RULES.map((rule) => [rule, { type: 'boolean' }])),
        additionalProperties: false,
      },
    ],
  },
  network: {
    title: '{ allow? }',
    type: 'object',
    description:
      'The network policy. Provider and world hosts are served, loopback ports a server of the test process listens on pass; everything else fails the test unless listed here.',
    properties: {
      allow: {
        type: 'array',
        description:
          'host:port patterns that pass untouched, e.g. "localhost:5432", "*.internal.test:443", "db.internal.test:*". A loopback name allows every loopback address.',
        items: { type: 'string', minLength: 1 },
      },
    },
    additionalProperties: false,
  },
  handlers: path(
    'A module whose export (module.exports, `handlers` or `default`) is an array of msw request handlers, for every test file; relative to the rootDir. They answer after provider and world hosts, before the network policy.',
  ),
  dialect: {
    title: "'all' | 'none' | [names] | { dialects, seed? }",
    description: `Stream dialects for every fixture of the file that sets no \`dialect\` of its own: "all", "none", a list of names (${DIALECT_NAMES.join(', ')}), or { "dialects": "all" | [names], "seed": n }.`,
    anyOf: [
      { type: 'string', enum: ['all', 'none'] },
      names,
      {
        type: 'object',
        properties: {
          dialects: { anyOf: [{ type: 'string', enum: ['all'] }, names] },
          seed: { type: 'integer' },
        },
        required: ['dialects'],
        additionalProperties: false,
      },
    ],
  },
  prices: {
    title:
      '{ [provider]: { [model]: { input, output, cachedInput?, cacheWrite?, reasoning?, longContext? } } }',
    type: 'object',
    description:
      'Model prices in USD per million tokens, over the built-in table (a model listed here replaces its built-in price), for cost budgets (`toHaveCostBelow`). A model id `*` prices every other model of that provider.',
    properties: Object.fromEntries(
      PRICED_PROVIDERS.map((id) => [
        id,
        { ...modelPrices, description: `${id}'s model ids (or \`*\`) → their price.` },
      ]),
    ),
    additionalProperties: false,
  },
} satisfies Described<keyof UnderstudyOptions>;

export const optionsSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'testEnvironmentOptions.understudy',
  description:
    'Options of the jest-understudy environment, under `testEnvironmentOptions.understudy` in the Jest config. Docblock pragmas (`@understudy-world`, `@understudy-fixtures`, `@understudy-cassette`) and UNDERSTUDY_* environment variables override some of them.',
  type: 'object',
  properties,
  additionalProperties: false,
};
