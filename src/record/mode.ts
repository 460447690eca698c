/**
 * The four modes and the rules that guard the two that reach a real provider: they never
 * start on CI, and they need the provider's own key (not the placeholder replay sets).
 */
import type { ProviderId } from '../conversation';
import { PLACEHOLDER_KEYS } from '../files/secrets';

/**
 * - `replay` (default): fixtures answer; nothing reaches the network.
 * - `record`: every model call goes to the provider; the calls become fixtures.
 * - `record-missing`: fixtures answer what they match; only the rest goes to the provider and is appended.
 * - `live`: every model call goes to the provider; nothing is written.
 */
export type UnderstudyMode = 'replay' | 'record' | 'record-missing' | 'live';

export const MODES: readonly UnderstudyMode[] = ['replay', 'record', 'record-missing', 'live'];

export function isMode(value: unknown): value is UnderstudyMode {
  return typeof value === 'string' && (MODES as readonly string[]).includes(value);
}

/** Whether the mode sends (some) model calls to the provider. */
export function reachesNetwork(mode: UnderstudyMode): boolean {
  return mode !== 'replay';
}

/** `CI` as CI services set it (`true`, `1`, a name); `false`, `0` and empty mean not CI. */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  const value = env.CI;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** Set by `understudy live --allow-ci` for its runs on CI (a nightly job): the one way past the CI rule. */
export const ALLOW_CI_VARIABLE = 'UNDERSTUDY_ALLOW_CI';

/** CI is set and no `understudy live --allow-ci` run lifted the rule. */
export function ciForbids(env: NodeJS.ProcessEnv): boolean {
  return isCI(env) && env[ALLOW_CI_VARIABLE] !== '1';
}

/** The refusal, worded for where the mode was asked for; undefined when the mode may run here. */
export function ciRefusal(mode: UnderstudyMode, where: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!reachesNetwork(mode) || !ciForbids(env)) return undefined;
  return (
    `jest-understudy: ${where} asks for ${mode} mode, but CI is set (CI=${JSON.stringify(env.CI)}). ` +
    `${mode} mode calls the real model provider, so it runs only on a developer machine; CI replays ` +
    'committed fixtures. Record locally, review the files, commit them, and let CI replay them.'
  );
}

/** The variables each provider's SDKs read their key from, in the order to suggest them. */
export const KEY_VARIABLES: Record<ProviderId, readonly string[]> = {
  openai: ['OPENAI_API_KEY', 'AZURE_OPENAI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
  bedrock: ['AWS_ACCESS_KEY_ID', 'AWS_BEARER_TOKEN_BEDROCK'],
  // A local server takes no key.
  ollama: [],
};

/**
 * Whether record and live modes may start without any provider key: a local server the file
 * serves (Ollama) takes none. A call to a provider that does need one still needs it.
 */
export function keylessProviderOn(providers: Partial<Record<string, string[]>>): boolean {
  return (providers.ollama?.length ?? 0) > 0;
}

export function isRealKey(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '' && !PLACEHOLDER_KEYS.has(value);
}

/** The key variables of any provider that hold a real key. */
export function realKeys(env: NodeJS.ProcessEnv): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (const names of Object.values(KEY_VARIABLES))
    for (const name of names) {
      const value = env[name];
      if (isRealKey(value)) out.push({ name, value });
    }
  return out;
}

/** The key variables of `env` that hold a replay placeholder. */
export function placeholderKeys(env: NodeJS.ProcessEnv): string[] {
  return Object.values(KEY_VARIABLES)
    .flat()
    .filter((name) => PLACEHOLDER_KEYS.has(env[name] ?? ''));
}

/**
 * Why a test guarded by a key variable still ran, when replay filled it with a placeholder, and
 * what to write instead; '' when no key variable holds one.
 */
export function placeholderNote(env: NodeJS.ProcessEnv): string {
  const [name] = placeholderKeys(env);
  if (name === undefined) return '';
  return (
    ` ${name} holds jest-understudy's replay placeholder (${JSON.stringify(env[name])}), not a key: replay sets it ` +
    'before the test file loads, so SDK clients built at import time work, and so a guard on the variable ' +
    `(\`process.env.${name} ? it : it.skip\`, \`it.skipIf(!process.env.${name})\`) does not skip. Write a test that ` +
    "needs the real model with jest-understudy's `live(name, fn)`: it runs only in live mode (`npx understudy live`) " +
    'with a real key, never on CI, and is skipped with the reason otherwise.'
  );
}

/** Says which variable to set when no provider key is set at all (and why a guard did not skip, given `env`). */
export function noKeyMessage(mode: UnderstudyMode, where: string, env: NodeJS.ProcessEnv = {}): string {
  return (
    `jest-understudy: ${where} runs in ${mode} mode, which calls the real provider with your key, but no ` +
    'provider key is set. Set OPENAI_API_KEY (OpenAI), ANTHROPIC_API_KEY (Anthropic), GEMINI_API_KEY / ' +
    'GOOGLE_API_KEY (Gemini) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Bedrock) for the provider your agent calls.' +
    placeholderNote(env)
  );
}
