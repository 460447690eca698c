/// <reference path="./matchers.mts" preserve="true" />
/**
 * `jest-understudy/vitest`: the Vitest plugin. What the Jest preset sets up, set up for Vitest:
 * the options validated at start-up (the same schema and texts as Jest's), the session's setup
 * file first in every test file (./setup.mts), `msw/node` served by jest-understudy, and the
 * settings the product cannot honour refused with the reason.
 */
import { join } from 'node:path';
import type { Plugin } from 'vitest/config';
import type { UnderstudyOptions } from '../../src/options';
import { toError } from '../failures';
import { resolveOptions } from '../options';
import { MSW_NODE } from './msw-require';
import { PROVIDE_KEY, type ProvidedSession } from './provided';

const SETUP = join(__dirname, 'setup.mjs');
const REPORTER = join(__dirname, '..', '..', 'src', 'reporter', 'vitest.js');
const PUBLIC_REPORTER = 'jest-understudy/vitest/reporter';

interface ResolvedProjectConfig {
  root: string;
  name?: string;
  isolate?: boolean;
  pool?: string;
  browser?: { enabled?: boolean };
}

/** Why jest-understudy cannot run a project configured so, or undefined when it can. */
function refusal(config: ResolvedProjectConfig): string | undefined {
  const project = config.name ? `Vitest project "${config.name}"` : 'this Vitest project';
  const why = (setting: string, reason: string) =>
    `jest-understudy cannot run ${project} with ${setting}: ${reason}. Remove it from the config (or the command line) of the project that uses the plugin.`;
  if (config.browser?.enabled)
    return why(
      'browser mode (`browser.enabled`)',
      'its mock model, world and network containment run in Node, around the test file; a test file in a browser has none of them',
    );
  if (config.pool === 'vmThreads' || config.pool === 'vmForks')
    return why(
      `the \`${config.pool}\` pool`,
      "it runs test files in a vm context whose globals the network containment does not patch: use the default 'forks' pool or 'threads'",
    );
  return undefined;
}

/** The Vitest plugin: `plugins: [understudy({ ...the options of testEnvironmentOptions.understudy })]`. */
function understudy(options: UnderstudyOptions = {}): Plugin {
  return {
    name: 'jest-understudy',
    // Before Vitest's own plugins: browser mode is refused before its provider is looked for.
    enforce: 'pre',
    config(config) {
      config.test ??= {};
      const test = config.test;
      const early = refusal(test as ResolvedProjectConfig);
      if (early) throw toError('RUNNER_SETTING_REFUSED', early);
      const given = test.setupFiles === undefined ? [] : [test.setupFiles].flat();
      test.setupFiles = [SETUP, ...given.filter((file) => file !== SETUP)];
      // Each test's line reaches the reporter: a failure whose stack never enters the test file
      // (an unmatched request failing the test at its end) is annotated there.
      test.includeTaskLocation ??= true;
      return {
        // A test file's `setupServer(...)` (msw/node) is served by jest-understudy, as under Jest.
        resolve: { alias: [{ find: /^msw\/node$/, replacement: MSW_NODE }] },
      };
    },
    configureVitest({ project, vitest }) {
      const config = project.config as unknown as ResolvedProjectConfig;
      const refused = refusal(config);
      if (refused) throw toError('RUNNER_SETTING_REFUSED', refused);
      // Bad options fail the run before any test file, with the texts Jest's environment gives.
      resolveOptions(options, {}, config.root, join(config.root, 'vitest.config'), process.env);
      const provided: ProvidedSession = {
        options,
        root: config.root,
        project: config.name ?? '',
        shared: config.isolate === false,
      };
      (project as unknown as { provide(key: string, value: unknown): void }).provide(PROVIDE_KEY, provided);
      // The summary after the run, beside whatever reporters the config or the command line chose.
      // One the config names itself (with its options: `junit`…) stands instead.
      const reporters = (vitest as unknown as { config: { reporters: unknown[] } }).config.reporters;
      const named = (r: unknown) => r === REPORTER || r === PUBLIC_REPORTER;
      if (!reporters.some((r) => named(r) || (Array.isArray(r) && named(r[0]))))
        reporters.push([REPORTER, { addedBy: 'jest-understudy/vitest' }]);
    },
  };
}

export = understudy;
