/**
 * The installed case projects that share child runs. When a run of the installed suites starts,
 * the projects of the drivers it selected run together, in one child per runner (a Jest run of
 * `projects`, a Vitest run of `test.projects`: __tests__/support/shared-runs.ts); a driver then
 * reads its project's results with `sharedRun(name, runner)`. A run that filters by test name (or
 * by changed files, a shard…) runs each project a driver asks for in a child of its own instead.
 *
 * A project here sets no process option (environment, arguments, the CLI, a network namespace),
 * starts from a fresh folder, and its driver reads only its files, its folder and, of the output,
 * what the runner printed under its own tests' names: the exit code and the rest of the output of
 * a shared child belong to every project in it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { python } from '../../examples/support/child';
import type { InstalledProject, Runner } from '../support/installed';

export interface SharedProject extends InstalledProject {
  /** The test file in __tests__/installed that reads it. */
  driver: string;
  /** The runners it runs under: one project folder for each. */
  runners: readonly Runner[];
  /**
   * Whether it runs under all of `runners` in every tier (../support/runner-tier.ts), because its
   * driver compares the runners' results or checks that each runner starts at all.
   */
  everyRunner?: true;
}

/** Jest CommonJS, Jest ESM and Vitest: every case runs under all three unless it says why not. */
const ALL = ['jest-cjs', 'jest-esm', 'vitest'] as const;
/** Jest's own options or messages, which mean nothing to Vitest. */
const JEST = ['jest-cjs', 'jest-esm'] as const;
/**
 * Where a test file can load msw: msw 3 (and msw 2 through rettime) is ES modules only, which Jest
 * requires only under --experimental-vm-modules on Node 24.9 or later; Vitest loads them itself.
 */
const MSW: readonly Runner[] = (() => {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 9) ? ['jest-esm', 'vitest'] : ['vitest'];
})();

const EXAMPLES = join(__dirname, '..', '..', 'examples');

export const SHARED = {
  smoke: { driver: 'smoke.test.ts', cases: ['smoke.case.js'], runners: ALL, everyRunner: true },
  'sockets-responses': { driver: 'sockets.test.ts', cases: ['sockets-responses.case.js'], runners: ALL },
  'sockets-refused': { driver: 'sockets.test.ts', cases: ['sockets-refused.case.js'], runners: ALL },
  'sockets-browser': { driver: 'sockets.test.ts', cases: ['sockets-browser.case.js'], runners: ALL },
  'gemini-live': { driver: 'gemini-live.test.ts', cases: ['gemini-live-client.case.js'], runners: ALL },
  realtime: { driver: 'realtime.test.ts', cases: ['realtime-voice.case.js'], runners: ALL },
  'ws-package': { driver: 'ws-package.test.ts', cases: ['ws-package.case.js'], runners: ALL },
  'session-timeline': {
    driver: 'session-timeline.test.ts',
    cases: [
      'session-timeline-realtime.case.js',
      'session-timeline-live.case.js',
      'session-timeline-responses.case.js',
    ],
    understudy: { traces: 'always' },
    runners: ALL,
  },
  'ordered-blocks-loops': {
    driver: 'ordered-blocks.test.ts',
    cases: ['ordered-blocks-loops.case.js'],
    runners: ALL,
  },
  'ordered-blocks-refused': {
    driver: 'ordered-blocks.test.ts',
    cases: ['ordered-blocks-refused.case.js'],
    understudy: { providers: { ollama: true } },
    runners: ALL,
  },
  // The AI SDK ships ES modules only: a CommonJS Jest project cannot require it (without a transform).
  'ordered-blocks-ai-sdk': {
    driver: 'ordered-blocks-ai-sdk.test.ts',
    cases: ['ordered-blocks-ai-sdk.case.js'],
    runners: ['jest-esm', 'vitest'],
  },
  errors: { driver: 'errors.test.ts', cases: ['errors.case.js'], runners: ALL },
  contracts: { driver: 'contracts.test.ts', cases: ['contracts.case.js'], runners: ALL },
  mcp: { driver: 'mcp.test.ts', cases: ['mcp.case.js'], runners: ALL },
  surface: {
    driver: 'surface.test.ts',
    cases: ['surface-bedrock.case.js', 'surface-dialects.case.js', 'surface-embeddings.case.js'],
    runners: ALL,
  },
  delivered: {
    driver: 'delivered.test.ts',
    cases: ['delivered-inprocess.case.js', 'delivered-timers.case.js'],
    runners: ALL,
  },
  'delivered-served': {
    driver: 'delivered-served.test.ts',
    cases: ['delivered-served.case.js'],
    runners: ALL,
  },
  'fidelity-requests': {
    driver: 'fidelity-requests.test.ts',
    cases: ['fidelity-requests.case.js'],
    runners: ALL,
  },
  'fidelity-tools': { driver: 'fidelity-tools.test.ts', cases: ['fidelity-tools.case.js'], runners: ALL },
  'ownership-late': { driver: 'ownership.test.ts', cases: ['ownership-late.case.js'], runners: ALL },
  'ownership-served': { driver: 'ownership.test.ts', cases: ['ownership-served.case.js'], runners: ALL },
  'ownership-concurrent': {
    driver: 'ownership.test.ts',
    cases: ['ownership-concurrent.case.js'],
    runners: ALL,
  },
  pyramid: {
    driver: 'pyramid.test.ts',
    cases: ['pyramid-matchers.case.js', 'pyramid-timeline.case.js'],
    runners: ALL,
  },
  'pyramid-runs': {
    driver: 'pyramid-runs.test.ts',
    cases: [
      'pyramid-scenario.case.js',
      'pyramid-sweep.case.js',
      'pyramid-crash.case.js',
      'pyramid-providers.case.js',
    ],
    runners: ALL,
  },
  runs: {
    driver: 'runs.test.ts',
    cases: [
      'runs-fake-timers.case.js',
      'runs-errored.case.js',
      'runs-errored-file.case.js',
      'runs-drill.case.js',
      'runs-golden.case.js',
      'runs-leak.case.js',
    ],
    runners: ALL,
  },
  truthful: {
    driver: 'truthful.test.ts',
    cases: [
      'truthful-called.case.js',
      'truthful-looks.case.js',
      'truthful-messages.case.js',
      'truthful-names.case.js',
      'truthful-mcp.case.js',
    ],
    runners: ALL,
  },
  'reported-outcomes': {
    driver: 'reported-outcomes.test.ts',
    cases: ['reported-outcomes.case.js'],
    runners: ALL,
  },
  // Agents in other processes on the served port. The Python to run (UNDERSTUDY_PYTHON, the CI's
  // virtualenv, else python3) is written beside the cases, since a shared child sets no environment.
  serve: {
    driver: 'serve.test.ts',
    cases: ['serve-*.case.js'],
    files: {
      'serve-orders.world.yaml': readFileSync(join(EXAMPLES, 'python-agent', 'orders.world.yaml'), 'utf8'),
      'serve-agent.py': readFileSync(join(EXAMPLES, 'python-agent', 'agent.py'), 'utf8'),
      'serve-agent.sh': readFileSync(join(EXAMPLES, 'shell-agent', 'agent.sh'), 'utf8'),
      'serve-raw-client.cjs': readFileSync(join(__dirname, '..', 'e2e', 'serve', 'raw-client.cjs'), 'utf8'),
      'serve-python.path': python(),
    },
    runners: ALL,
  },
  'workspace-changes': {
    driver: 'workspace-changes.test.ts',
    cases: ['workspace-changes.case.js'],
    runners: ALL,
  },
  // Cassettes that cannot be loaded: merge-conflict markers, a fixture file that is not valid.
  'validation-cassette': {
    driver: 'validation.test.ts',
    cases: [
      'validation-cassette.case.js',
      'validation-cassette-invalid.case.js',
      'validation-cassette-dir.case.js',
      'validation-cassette-passwd.case.js',
    ],
    files: {
      '__cassettes__/validation-cassette.case.js.cassette.json':
        '<<<<<<< HEAD\n{ "fixtures": [] }\n=======\n{ "fixtures": [{ "match": {} }] }\n>>>>>>> main\n',
      'recordings/invalid.cassette.json':
        '{ "fixtures": [{ "match": {}, "response": { "toolCalls": "lookup" } }] }\n',
    },
    runners: ALL,
  },
  'validation-use': { driver: 'validation.test.ts', cases: ['validation-use.case.js'], runners: ALL },
  // The parity scenarios (cases/vitest/parity-scenarios.cjs), written once for every runner.
  parity: { driver: 'vitest.test.ts', cases: ['vitest/parity.case.js'], runners: ALL, everyRunner: true },
  modes: { driver: 'modes-and-messages.test.ts', cases: ['modes.case.js'], runners: ALL },
  'model-call-index': {
    driver: 'modes-and-messages.test.ts',
    cases: ['model-call-index.case.js'],
    runners: ALL,
  },
  // Jest's own messages for a test file its environment does not run: without the preset (the bare
  // config), with the pair of options the message names, under a docblock `@jest-environment`.
  // Jest's preset, options and docblock mean nothing to Vitest, so Jest only. Vitest's counterparts
  // are in vitest.test.ts: a file run without the plugin (its ENVIRONMENT_MISSING message) and the
  // settings the plugin refuses at start-up.
  'env-missing': {
    driver: 'modes-and-messages.test.ts',
    cases: ['env-missing.case.js'],
    config: { preset: undefined },
    runners: JEST,
  },
  'env-docblock': {
    driver: 'modes-and-messages.test.ts',
    cases: ['env-docblock.case.js'],
    runners: JEST,
  },
  'env-pair': {
    driver: 'modes-and-messages.test.ts',
    cases: ['smoke.case.js'],
    config: {
      preset: undefined,
      testEnvironment: 'jest-understudy/environment',
      setupFilesAfterEnv: ['jest-understudy/setup'],
    },
    runners: JEST,
  },
  'startup-first-request': {
    driver: 'startup.test.ts',
    cases: [
      'startup-first-fetch.case.js',
      'startup-first-http.case.js',
      'startup-first-undici.case.js',
      'startup-first-top-level.case.js',
      'startup-first-plain-http.case.js',
      'startup-first-websocket.case.js',
      'startup-first-ws.case.js',
      'startup-first-bedrock.case.js',
    ],
    runners: ALL,
  },
  'lazy-msw': { driver: 'lazy-msw.test.ts', cases: ['lazy-msw.case.js'], runners: ALL },
  'startup-first-handler': {
    driver: 'startup.test.ts',
    cases: ['startup-first-handler.case.js'],
    runners: MSW,
  },
} satisfies Record<string, SharedProject>;

export type SharedName = keyof typeof SHARED;

/**
 * The runners as a driver's `it.each` / `describe.each` rows: its title's words, then the runner.
 * A driver checks the same statuses, messages and writes under each: the product says the same
 * under both runners; where the runner's own output differs, the driver says why beside the check.
 */
export const EACH_RUNNER = [
  ['Jest CommonJS, no flag', 'jest-cjs'],
  ['Jest with --experimental-vm-modules', 'jest-esm'],
  ['Vitest with the plugin', 'vitest'],
] as const;
