/**
 * Every code the package reports, what it means and what to do about it: the one table
 * the error classes take their codes from and docs/errors.md is generated from
 * (`npm run docs`; a test fails when the page and this table differ). No imports, so the
 * docs script can load it with Node's type stripping.
 */

export interface ErrorCodeInfo {
  /** The heading the code is listed under in docs/errors.md. */
  area: ErrorArea;
  /** What happened, in one sentence. */
  meaning: string;
  /** What to do about it. */
  action: string;
}

export const ERROR_AREAS = {
  setup: 'Setup and arguments',
  model: 'Model requests',
  network: 'Network',
  runs: 'Runs',
  recording: 'Recording and cassettes',
  files: 'Files (fixtures, worlds, golden tasks, options)',
  world: 'World API',
  tools: 'Tool failures (what a world operation answers)',
  traces: 'Traces',
} as const;

export type ErrorArea = keyof typeof ERROR_AREAS;

export const ERROR_CODES = {
  // ── setup ──
  ENVIRONMENT_MISSING: {
    area: 'setup',
    meaning: "The test file uses `understudy` but jest-understudy's environment is not running it.",
    action:
      "Set `preset: 'jest-understudy'` in the Jest config (or the project's entry in `projects`), which also registers the matchers. " +
      "Without the preset, set both `testEnvironment: 'jest-understudy/environment'` and `setupFilesAfterEnv: ['jest-understudy/setup']`. " +
      'With the preset set, remove what replaces its environment: a `@jest-environment` docblock in the file, or a `testEnvironment` beside the preset.',
  },
  RUNNER_SETTING_REFUSED: {
    area: 'setup',
    meaning:
      'The test runner is set up in a way jest-understudy cannot honour (under Vitest: browser mode, a `vmThreads`/`vmForks` pool).',
    action:
      'Remove the setting the message names for the project that uses jest-understudy (or run those tests in another Vitest project without the plugin).',
  },
  OPTIONS_INVALID: {
    area: 'setup',
    meaning:
      '`testEnvironmentOptions.understudy`, a docblock pragma or an `UNDERSTUDY_*` variable has a wrong value.',
    action: 'Fix the option the message names; it says what was expected and, where likely, what you meant.',
  },
  BAD_ARGUMENT: {
    area: 'setup',
    meaning: 'A function of the package was called with an argument it cannot use.',
    action: 'The message names the function, the argument and what it expects.',
  },
  CONTAINMENT_FAILED: {
    area: 'setup',
    meaning: "The environment could not put its network guard in place (Node's fetch has no undici Agent).",
    action: 'Run on a supported Node version (20.19 or later) and report the Node version if it persists.',
  },
  FETCH_AFTER_TEARDOWN: {
    area: 'setup',
    meaning: '`fetch` was called after the test file finished, so nothing serves it.',
    action: 'Await (or abort) every run, SDK call and stream the tests start before they end.',
  },
  // ── model requests ──
  MODEL_UNMATCHED: {
    area: 'model',
    meaning: "No fixture matched a model request; the agent got a 404 in the provider's error format.",
    action:
      'Add a fixture for the request (the message shows its match keys and the nearest fixtures), record one, or accept it with `understudy.model.acceptUnmatched()`.',
  },
  ENDPOINT_UNSUPPORTED: {
    area: 'model',
    meaning:
      "A request reached a provider host on an endpoint jest-understudy does not mock (it answered the provider's 404).",
    action:
      'Use one of the supported endpoints (docs/providers.md lists them), or serve the URL with msw yourself.',
  },
  REPLY_ORDER_UNSUPPORTED: {
    area: 'model',
    meaning:
      "A fixture's reply has text after a tool call, and the request's protocol sends a reply's text apart from its calls (Chat Completions, Ollama), so it cannot keep that order: the agent got a 500.",
    action:
      'Answer this protocol with text before the calls (or the text in the next turn, after the tool results), or run the agent on a protocol that keeps the order (Responses, Anthropic Messages, Gemini, Bedrock Converse).',
  },
  CONTRACT_BREACH: {
    area: 'model',
    meaning:
      "A request the real API would refuse (or a fixture answer it could not give): the agent got the API's error.",
    action:
      'Fix the agent (or the fixture) as the message says; turn one rule off with `contracts: { rule: false }` only when the check is wrong.',
  },
  // ── network ──
  UNHANDLED_REQUEST: {
    area: 'network',
    meaning: 'A connection to a host nothing serves was refused: replay never reaches the network.',
    action:
      'Serve the host with a world package or an msw handler (`understudy.http.use`), start the server in the test, list it in `network.allow`, or stop the agent from calling it.',
  },
  HTTP_HANDLER_INVALID: {
    area: 'network',
    meaning:
      'Something given as an msw handler (to `understudy.http.use`, `setupServer`, `server.use` or the `handlers` option) is not one jest-understudy can serve.',
    action:
      'Pass msw request handlers (`http.get(…)`, `graphql.query(…)`), spread (`...handlers`), not an array; the message names the alternative for what is not supported (WebSocket handlers, `SetupServerApi`).',
  },
  HTTP_HANDLER_FAILED: {
    area: 'network',
    meaning:
      'An msw handler of the test threw while answering a request (the request failed like a network error).',
    action:
      'Fix the handler the message names; to answer with an error status, return (or throw) an `HttpResponse`.',
  },
  SERVED_UNROUTED: {
    area: 'network',
    meaning:
      'A request reached the served port (`understudy.serve()`) at a path nothing there serves; it was answered 404.',
    action:
      'Give the child the URLs of `served.urls` / `served.env` (a provider base URL, `world/<package>`, `mcp/<package>`, `tools/<package>/<operation>`).',
  },
  SERVE_FAILED: {
    area: 'setup',
    meaning: '`understudy.serve()` could not start its loopback server.',
    action: 'The message gives the reason from Node; report it if it persists.',
  },
  // ── runs ──
  RUN_TIMEOUT: {
    area: 'runs',
    meaning: "The agent did not finish within the run's `timeoutMs`; its signal was aborted.",
    action: 'Look at `run.modelCalls` to see where it stopped, or give it more time.',
  },
  RUN_UNOBSERVED: {
    area: 'runs',
    meaning: 'A run threw or timed out and the test never read `run.error` or `run.terminalState`.',
    action:
      'Assert how the run ended (`expect(run).toHaveTerminalState(…)`), or pass `expectError: true` when the failure is expected.',
  },
  RUN_UNATTRIBUTED: {
    area: 'runs',
    meaning:
      "A model call or world operation arrived outside every run's async context while several runs were active.",
    action: 'Make the call inside the agent function, or run the agents one after another.',
  },
  RUN_ENDED: {
    area: 'runs',
    meaning:
      'A model call or world operation was made after its run ended, or after the test that made it ended: in the async context of an ended run (a timer or background work the agent left behind), over the served port with the token of an ended run or test (a child process outlived it), or from a browser page routed in an ended test. It was refused; it fails the test it came from while that test runs, else the test file.',
    action:
      'Wait for the work inside the agent function (or the test), before it returns: await what the agent starts, wait for child processes to exit, close pages in afterEach. Start what several runs share (a server, a client with a queue) outside understudy.run().',
  },
  CONCURRENT_TEST: {
    area: 'runs',
    meaning:
      "A test.concurrent test used jest-understudy (the model, the world, a run, a model call or a tool call). A test file has one mock model and one world, so concurrent tests would answer each other's requests; it is refused and fails that test.",
    action:
      'Write the test with test() or it(). To run several agents at once, run them inside one test: await Promise.all([understudy.run(a), understudy.run(b)]).',
  },
  HARNESS_CLOSED: {
    area: 'runs',
    meaning: '`harness.run()` was called after `harness.close()`.',
    action: 'Create a new harness.',
  },
  AGENT_CRASHED: {
    area: 'runs',
    meaning:
      "A `crash` fault stopped the run where it asked (after an operation, or at a model request): the run ended 'crashed', and nothing it had in flight was answered.",
    action:
      "Expected in a crash test: start the agent again with `understudy.run(agent, { resumeFrom: run })` or a drill's `resume`, then check it did not repeat an effect.",
  },
  CRASH_NOT_REACHED: {
    area: 'runs',
    meaning:
      'A run was given a `crash` fault, but it ended before reaching the operation or step the crash names.',
    action:
      'Check the crash names an operation the agent calls (and that succeeds) or a step it reaches; the run shows what it did instead.',
  },
  SWEEP_BASELINE_FAILED: {
    area: 'runs',
    meaning:
      '`understudy.sweep()` runs the test body once without faults first, and that run did not pass, so no fault can be judged against it.',
    action: 'Make the test body pass on its own first; the message lists why it failed.',
  },
  SWEEP_STATEFUL_FAKE: {
    area: 'runs',
    meaning:
      'A sweep or `acrossProviders` ran a scenario again with the same tool-fake instance, so state from one run would leak into the next.',
    action: "Give the scenario a factory instead: `withToolFake('name', () => new Fake())`.",
  },
  PORTABILITY_FAILED: {
    area: 'runs',
    meaning:
      '`understudy.acrossProviders()` ran the test body once per protocol and it failed (or never used the protocol it was given) on some of them.',
    action: 'The message names each protocol and why; `error.matrix` holds the runs and where they diverge.',
  },
  // ── recording ──
  RECORD_REFUSED: {
    area: 'recording',
    meaning: 'Record or live mode was asked for on CI (`CI` is set).',
    action: 'Record on a developer machine, review and commit the files; CI replays them.',
  },
  RECORD_KEY_MISSING: {
    area: 'recording',
    meaning:
      'Record or live mode has no real provider key to send (replay puts a placeholder in the key variables, so a test guarded by one still runs).',
    action:
      "Set the provider's key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY…); write a test that needs the real model with live(), not a guard on the variable.",
  },
  LIVE_BUDGET_SPENT: {
    area: 'recording',
    meaning:
      'In a repetition of `understudy live --budget-tokens/--budget-usd`, the run had spent its budget: the model call was not sent and the test stopped.',
    action:
      'Nothing to fix in the test: `understudy live` reports it as not run. Raise the budget to run more.',
  },
  RECORD_UNAVAILABLE: {
    area: 'recording',
    meaning: 'A call had to go to the real provider, but this environment cannot reach it (no upstream).',
    action: "Run the test file under jest-understudy's environment (the preset) to record.",
  },
  RECORD_UNSUPPORTED: {
    area: 'recording',
    meaning:
      'This call cannot be recorded: responses of its protocol, or a socket turn the relay cannot send as the client made it.',
    action: 'Write the fixture by hand (or with `script()`).',
  },
  RECORD_TRANSCRIPT_MISSING: {
    area: 'recording',
    meaning:
      'A spoken socket turn went to the provider as audio, but the provider sent no input transcription of it: the recording has no user text to match the turn by.',
    action:
      'Turn input transcription on for the session (Realtime `session.audio.input.transcription`, Live `inputAudioTranscription`) with a model the provider offers, and record again.',
  },
  RECORD_INCOMPLETE: {
    area: 'recording',
    meaning:
      'There is nothing (complete) to turn into fixtures: no run yet, no call that reached the provider, or a stream that was cut.',
    action: 'Run the agent in record mode first, and record again when the provider cut the stream.',
  },
  RECORD_AMBIGUOUS: {
    area: 'recording',
    meaning: 'Two recorded calls have the same match keys, so their fixtures could not be told apart.',
    action: 'Give the prompts something that differs, or write those fixtures with `sequenceIndex` by hand.',
  },
  RECORD_REDACT_BREAKS_REPLAY: {
    area: 'recording',
    meaning:
      'A redact hook changed a recorded fixture so that replay would not use it as recorded (its match keys, its recorded request, or its tool calls); nothing was written.',
    action:
      'Leave match keys and the recorded request alone: use `understudy.model.normalize` for values that vary, and the `redact: { pii }` option for personal data.',
  },
  RECORDER_FAILED: {
    area: 'recording',
    meaning: '`record()` (or `understudy record`) could not run the recorder, or it exited with an error.',
    action: 'Read the recorder output in the message; run the command it ran to see more.',
  },
  CASSETTE_LEAK: {
    area: 'recording',
    meaning: 'A file about to be written holds a credential in use; nothing was written.',
    action: 'Remove the key from your fixtures or redact hook, and write again.',
  },
  JUDGE_NOT_RECORDED: {
    area: 'recording',
    meaning:
      "Replay had no recorded verdict for a `toSatisfyJudge` call: a judge's call is answered only by its recording.",
    action:
      'Record it with the judge\'s key: `npx understudy record -- <test file> -t "<test name>"` (the message names both), or write a judge fixture by hand (docs/matchers.md).',
  },
  JUDGE_FAILED: {
    area: 'model',
    meaning:
      'The judge of `toSatisfyJudge` could not be asked, refused the request, or answered with no verdict.',
    action:
      'The message quotes what the judge answered. Check the `judge` option (provider, model, baseURL) and the key; a judge fixture must answer `{"verdict": "pass" | "fail", "reasons": [...]}`.',
  },
  PRICE_UNKNOWN: {
    area: 'runs',
    meaning: '`toHaveCostBelow` met a model call of a model that has no price, so the cost is unknown.',
    action:
      'Add the model\'s price in USD per million tokens to the `prices` option: `{ prices: { openai: { "my-model": { input, output } } } }`.',
  },
  CASSETTE_STALE: {
    area: 'recording',
    meaning:
      'A recorded fixture answered a request that changed since it was recorded (model, prompt, tools, an earlier message or tool result, sampling settings), or is older than `cassetteMaxAge` (`strictCassettes`).',
    action: 'Record it again (`UNDERSTUDY_MODE=record`), or turn `strictCassettes` off to only warn.',
  },
  CASSETTE_TOOL_MISSING: {
    area: 'recording',
    meaning:
      'A recorded fixture answered with a call to a tool the request no longer offers (renamed or removed since the recording).',
    action: 'Record the test again (`understudy record --stale`).',
  },
  CASSETTE_SECRET: {
    area: 'recording',
    meaning:
      '`understudy validate` found a credential (or something that looks or is named like one) in a cassette or a fixture file.',
    action: 'Replace it with [REDACTED] or record again, then rotate the key.',
  },
  CASSETTE_METADATA: {
    area: 'recording',
    meaning: "A cassette's metadata does not agree with its fixtures (it was edited by hand).",
    action: 'Record the cassette again.',
  },
  FILE_FINISH_FAILED: {
    area: 'recording',
    meaning: 'Finishing the test file (writing its cassette or fixture usage) failed.',
    action: 'Read the cause in the message; check that the cassette folder is writable.',
  },
  // ── files ──
  FIXTURE_INVALID: {
    area: 'files',
    meaning: 'A fixture file (or fixtures given in code) does not follow the fixture schema.',
    action: 'Fix each listed problem at its file, line and JSON path; most come with a suggestion.',
  },
  FIXTURE_PARSE_ERROR: {
    area: 'files',
    meaning: 'A fixture file is not valid JSON or YAML (or is empty, too deep, or has a key twice).',
    action: 'Fix the syntax at the line and column given.',
  },
  FIXTURE_UNSUPPORTED_EXTENSION: {
    area: 'files',
    meaning: 'A fixture file name does not end in .json, .yaml or .yml.',
    action: 'Rename the file.',
  },
  FIXTURE_READ_ERROR: {
    area: 'files',
    meaning: 'A fixture file could not be read (missing, a directory, no permission).',
    action: 'Check the path; relative paths are resolved against the working directory.',
  },
  FIXTURE_WRITE_ERROR: {
    area: 'files',
    meaning: 'A fixture file could not be written.',
    action: 'Check that the folder exists and is writable.',
  },
  VALIDATE_FAILED: {
    area: 'files',
    meaning:
      '`understudy validate` could not check a file: its validator failed on it (the other files are still checked).',
    action: 'Read the reason in the message; report it if the file is one jest-understudy should read.',
  },
  VALIDATE_UNKNOWN_KIND: {
    area: 'files',
    meaning:
      '`understudy validate` was named a file it cannot tell the kind of (by name or content), so it did not check it; a file a glob matched is skipped instead.',
    action:
      'Name it *.fixture.json, *.cassette.json, *.golden.yaml or *.world.yaml, pass --kind, or leave it off the command line.',
  },
  WORLD_INVALID: {
    area: 'files',
    meaning: 'A world file (or a drill setup) does not follow the world schema.',
    action: 'Fix each listed problem at its file, line and JSON path.',
  },
  WORLD_PARSE_ERROR: {
    area: 'files',
    meaning: 'A world file is not valid JSON or YAML.',
    action: 'Fix the syntax at the line and column given.',
  },
  WORLD_UNSUPPORTED_EXTENSION: {
    area: 'files',
    meaning: 'A world file name does not end in .yaml, .yml or .json.',
    action: 'Rename the file.',
  },
  WORLD_READ_ERROR: {
    area: 'files',
    meaning: 'A world file could not be read.',
    action: 'Check the path; relative paths are resolved against the working directory.',
  },
  WORLD_REFERENCE: {
    area: 'files',
    meaning:
      'A world file names something it does not define: a package, operation, error code, scenario, actor…',
    action: 'Fix the name (the message suggests the closest one) or define it.',
  },
  WORLD_MODULE_ERROR: {
    area: 'files',
    meaning: 'A behavior module does not exist, does not load, or lacks the handler.',
    action: 'Check the module path (relative to the world file) and its exports.',
  },
  GOLDEN_INVALID: {
    area: 'files',
    meaning: 'A golden task file does not follow the golden schema (or its fixtures the fixture schema).',
    action: 'Fix each listed problem at its file, line and JSON path.',
  },
  GOLDEN_PARSE_ERROR: {
    area: 'files',
    meaning: 'A golden task file is not valid JSON or YAML.',
    action: 'Fix the syntax at the line and column given.',
  },
  GOLDEN_READ_ERROR: {
    area: 'files',
    meaning: 'A golden task file could not be read, or its name does not end in .json, .yaml or .yml.',
    action: 'Check the path and the extension.',
  },
  // ── world API ──
  WORLD_MISSING: {
    area: 'world',
    meaning: 'A world API was used but no world is loaded for the test file.',
    action:
      'Set the `world` option, add the `@understudy-world <path>` docblock pragma, or call `understudy.world.load(path)`.',
  },
  UNKNOWN_PACKAGE: {
    area: 'world',
    meaning: 'A world API named a package the world does not have.',
    action: 'Use one of the package ids the message lists.',
  },
  UNKNOWN_OPERATION: {
    area: 'world',
    meaning:
      'A world API, HTTP request or MCP `tools/call` named an operation (or route, or tool) the package does not have.',
    action: 'Use one of the operations, routes or tools the message lists.',
  },
  BINDING_UNSUPPORTED: {
    area: 'world',
    meaning:
      'A binding was asked for something its transport cannot do (mockTool on a package without `direct`, an MCP transport to one without `mcp`).',
    action: 'Read the message for the call that is supported instead, or add the binding to the package.',
  },
  UNKNOWN_DRILL: {
    area: 'world',
    meaning: '`runDrills` named a drill the world does not define.',
    action: 'Use one of the drill names the message lists.',
  },
  DRILL_OVERLAP: {
    area: 'world',
    meaning: 'Two drills ran at the same time in one test file.',
    action: 'Await each `runDrills` before the next, and do not run drills in concurrent tests.',
  },
  BUILD_MISMATCH: {
    area: 'world',
    meaning: 'A drill build was made from a different world (its hash differs).',
    action: 'Rebuild the drill from the current world, or load the world the build came from.',
  },
  MOCKTOOL_INPUT: {
    area: 'world',
    meaning: "A `mockTool` callable got input it cannot turn into the operation's input.",
    action: 'Pass one object (the operation input), as the message shows.',
  },
  MOCKTOOL_ERROR: {
    area: 'world',
    meaning:
      "A `mockTool`'s `error(envelope)` returned nothing for a failed operation, so the failure would have reached the agent as a success.",
    action: 'Return the native error to throw from `error` (a missing `return` is the usual cause).',
  },
  // ── tool failures ──
  PERMISSION_DENIED: {
    area: 'tools',
    meaning: "The actor may not call the operation (the world's permissions).",
    action: 'Expected when the test checks permissions; otherwise bind the right actor.',
  },
  INVALID_INPUT: {
    area: 'tools',
    meaning: "The tool input does not follow the operation's input schema.",
    action: 'The agent sent wrong arguments: the details name the field.',
  },
  BUDGET_EXCEEDED: {
    area: 'tools',
    meaning: 'The operation was called more often than its budget allows.',
    action: 'The agent loops or retries too much, or the budget is too small.',
  },
  IDEMPOTENCY_CONFLICT: {
    area: 'tools',
    meaning: 'An idempotency key was reused with different input.',
    action: 'The agent reuses keys wrongly: give each distinct request its own key.',
  },
  NOT_FOUND: {
    area: 'tools',
    meaning:
      'A built-in `get` or `delete` behavior found no record with the key (unless the world names another code), or a workspace file tool found no such file or folder.',
    action: 'Expected when the agent asks for what does not exist; otherwise seed the state the test needs.',
  },
  OUTSIDE_WORKSPACE: {
    area: 'tools',
    meaning:
      'A workspace file tool was given an absolute path, a path with `..`, or one through a symbolic link that leads out of the workspace folder.',
    action:
      'Expected when the test checks confinement; otherwise the agent should use paths relative to the workspace.',
  },
  NOT_A_FILE: {
    area: 'tools',
    meaning: 'A workspace file tool that reads or writes a file was given a folder.',
    action: 'The agent confused a folder with a file: list it with `list_dir` first.',
  },
  NOT_A_DIRECTORY: {
    area: 'tools',
    meaning:
      'A workspace file tool that lists or searches a folder was given a file (or a path through one).',
    action: 'The agent confused a file with a folder: give it the folder that holds the file.',
  },
  EDIT_NO_MATCH: {
    area: 'tools',
    meaning: "`edit_file`'s `old_string` does not occur in the file; nothing was changed.",
    action: 'The agent edits text it has not read (or read an older version): it should read the file again.',
  },
  EDIT_AMBIGUOUS: {
    area: 'tools',
    meaning:
      "`edit_file`'s `old_string` occurs more than once in the file and `replace_all` is not set; nothing was changed.",
    action:
      'The agent should give more of the surrounding text so the string is unique, or set `replace_all`.',
  },
  CONFLICT: {
    area: 'tools',
    meaning:
      'A built-in `create` behavior found a record with the key already (unless the world names another code).',
    action: 'The agent creates twice: check its retries, or give the record a new key.',
  },
  TIMEOUT: {
    area: 'tools',
    meaning: 'A timeout fault of the world answered the call (retryable).',
    action: 'Expected in a fault drill: the agent should retry or give up cleanly.',
  },
  INVALID_OUTPUT: {
    area: 'tools',
    meaning:
      "A behavior returned a value the operation's output schema rejects; the test fails (a world defect).",
    action: 'Fix the behavior or the output schema.',
  },
  BEHAVIOR_ERROR: {
    area: 'tools',
    meaning:
      'A behavior threw, or failed with a code its operation does not declare; the test fails (a world defect).',
    action: 'Fix the behavior module, or declare the error code on the operation.',
  },
  BINDING_EXPIRED: {
    area: 'tools',
    meaning: 'A `mockTool` callable or binding was used after the test (or drill trial) that made it ended.',
    action: 'Create tools inside the test that uses them.',
  },
  // ── traces ──
  TRACE_INVALID: {
    area: 'traces',
    meaning: '`understudy report` was given a file that is not a jest-understudy trace.',
    action: 'Pass a `.trace.json` file the environment wrote.',
  },
  TRACE_WRITTEN: {
    area: 'traces',
    meaning:
      "Not a failure of its own: the test failed and its first error could not take the trace's path, so this entry names it.",
    action: 'Open the trace and timeline it names.',
  },
  TRACE_WRITE_FAILED: {
    area: 'traces',
    meaning: "A failing test's trace or timeline could not be written (the test's own failure is kept).",
    action: 'Check that `traceDir` is writable.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
