import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';
import { TestEnvironment as NodeEnvironment } from 'jest-environment-node';
import { BRIDGE_KEY, type Bridge } from '../src/runtime/bridge';
import { type Interception, startInterception } from './msw';
import { resolveOptions } from './options';

/**
 * Placeholder keys so SDK constructors work in replay; no request carrying them leaves the
 * process. Each group is one provider's alternatives: a placeholder goes in the first name
 * only when none is set (@google/genai warns when it sees both of its names).
 */
const REPLAY_KEYS: Array<[names: string[], value: string]> = [
  [['OPENAI_API_KEY'], 'sk-understudy-replay'],
  [['ANTHROPIC_API_KEY'], 'sk-ant-understudy-replay'],
  [['GOOGLE_API_KEY', 'GEMINI_API_KEY'], 'understudy-replay'],
  [['GOOGLE_GENERATIVE_AI_API_KEY'], 'understudy-replay'],
];

function describeRequest(request: Request): string {
  return (
    `${request.method} ${request.url} reached the network layer, but nothing mocks it.\n` +
    '  jest-understudy fails every request it does not serve, so a test never depends on the network.\n' +
    '  For a model provider behind another host, add it to testEnvironmentOptions.understudy.providers.<name>.baseURL.'
  );
}

function testName(test: Circus.TestEntry): string {
  const names: string[] = [test.name];
  for (
    let block: Circus.DescribeBlock | undefined = test.parent;
    block && block.name !== 'ROOT_DESCRIBE_BLOCK';
    block = block.parent
  )
    names.unshift(block.name);
  return names.join(' > ');
}

/**
 * One mock model (and world) per test file. msw runs here, on the host, where it can
 * patch Node's http modules; the sandbox gets a `fetch` that hands provider traffic
 * straight to the runtime the test file loaded, and everything else to msw.
 */
export default class UnderstudyEnvironment extends NodeEnvironment {
  private readonly bridge: Bridge;
  private interception: Interception | undefined;
  private readonly envTouched = new Map<string, string | undefined>();
  private earlier: string[] = [];

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    const project = config.projectConfig;
    const raw = (project.testEnvironmentOptions as Record<string, unknown>)?.understudy;
    this.bridge = {
      options: resolveOptions(raw, context.docblockPragmas, project.rootDir, context.testPath, process.env),
      runtime: undefined,
      unhandled: [],
      currentTest: undefined,
    };
    (this.global as unknown as Record<symbol, unknown>)[BRIDGE_KEY] = this.bridge;
  }

  override async setup(): Promise<void> {
    await super.setup();
    const bridge = this.bridge;
    this.interception = await startInterception({
      handle: (request) => bridge.runtime?.handleRequest(request),
      unhandled: (request) => {
        bridge.unhandled.push(describeRequest(request));
      },
    });
    const mswFetch = this.interception.fetch;
    const fetch = (input: unknown, init?: unknown) =>
      bridge.runtime?.handleFetch(input, init) ?? mswFetch(input as RequestInfo, init as RequestInit);
    this.global.fetch = fetch as typeof globalThis.fetch;

    const env = this.global.process.env;
    for (const [names, value] of REPLAY_KEYS) {
      if (names.some((name) => env[name] !== undefined)) continue;
      this.envTouched.set(names[0], undefined);
      env[names[0]] = value;
    }
  }

  override async teardown(): Promise<void> {
    this.interception?.close();
    this.interception = undefined;
    const env = this.global.process?.env;
    if (env) {
      for (const [key, value] of this.envTouched) {
        if (value === undefined) delete env[key];
        else env[key] = value;
      }
    }
    this.envTouched.clear();
    this.bridge.runtime = undefined;
    delete (this.global as unknown as Record<symbol, unknown>)[BRIDGE_KEY];
    await super.teardown();
  }

  /** Fails a test for what its agent may have swallowed: unmatched model calls, unmocked requests. */
  async handleTestEvent(event: Circus.Event, state: Circus.State): Promise<void> {
    const bridge = this.bridge;
    const drain = () => bridge.runtime?.drainFailures() ?? bridge.unhandled.splice(0);
    switch (event.name) {
      case 'test_start':
        // What failed in beforeAll hooks or at file level is charged to the next test.
        this.earlier = drain().map((m) => `Before this test (in a beforeAll hook or at file level): ${m}`);
        bridge.currentTest = testName(event.test);
        bridge.runtime?.testStarted(bridge.currentTest);
        break;
      case 'test_done': {
        bridge.runtime?.testFinished();
        bridge.currentTest = undefined;
        for (const message of [...this.earlier, ...drain()]) event.test.errors.push(toError(message));
        this.earlier = [];
        break;
      }
      case 'run_finish':
        for (const message of drain())
          state.unhandledErrors.push(toError(`After the last test (in an afterAll hook): ${message}`));
        break;
    }
  }
}

function toError(message: string): Error {
  const error = new Error(message);
  error.name = 'UnderstudyError';
  // The stack would point into the environment; the message is what helps.
  error.stack = `${error.name}: ${message}`;
  return error;
}

export { UnderstudyEnvironment as TestEnvironment };
