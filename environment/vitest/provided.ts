/** What the Vitest plugin hands each test file's session, through Vitest's `provide` / `inject`. */
export const PROVIDE_KEY = 'jest-understudy';

export interface ProvidedSession {
  /** The plugin's options as given (validated at start-up). */
  options: unknown;
  /** The project's root: relative option paths resolve against it, as against Jest's rootDir. */
  root: string;
  /** The project's name, which keeps projects' fixture-usage files apart. */
  project: string;
  /** Whether a worker runs many test files in one module graph (`isolate: false`). */
  shared?: boolean;
}
