/**
 * The credentials in use, so no file the product writes contains one, whatever its shape
 * (a gateway key looks like nothing a pattern knows): the values of the process's
 * credential variables (`OPENAI_API_KEY`, `…_API_KEY`, `…_TOKEN`, `…_SECRET`…) and every
 * credential a request carried (a header or query parameter named like one, Basic credentials
 * decoded), noted as requests arrive and kept in memory only.
 */
import { formFound, isCredentialName } from '../redact';

/**
 * What replay puts in unset key variables so SDK constructors work; never a real key. Each
 * group is one provider's alternatives: a placeholder goes in the first name only when none
 * is set (@google/genai warns when it sees both of its names).
 */
export const REPLAY_KEYS: ReadonlyArray<readonly [names: readonly string[], value: string]> = [
  [['OPENAI_API_KEY'], 'sk-understudy-replay'],
  [['AZURE_OPENAI_API_KEY'], 'understudy-replay'],
  [['ANTHROPIC_API_KEY'], 'sk-ant-understudy-replay'],
  [['GOOGLE_API_KEY', 'GEMINI_API_KEY'], 'understudy-replay'],
  [['GOOGLE_GENERATIVE_AI_API_KEY'], 'understudy-replay'],
  // The AWS SDK and the AI SDK's Bedrock provider sign requests with these (SigV4) and need a region.
  [['AWS_ACCESS_KEY_ID'], 'AKIAUNDERSTUDYREPLAY0'],
  [['AWS_SECRET_ACCESS_KEY'], 'understudy-replay-secret-access-key'],
  [['AWS_REGION', 'AWS_DEFAULT_REGION'], 'us-east-1'],
];

export const PLACEHOLDER_KEYS: ReadonlySet<string> = new Set(REPLAY_KEYS.map(([, value]) => value));

/**
 * Where the noted credentials live: a global of the realm, so every copy of the package
 * loaded into it shares them. The environment points a test file's realm at a set of its own.
 */
export const SECRETS_REGISTRY = Symbol.for('jest-understudy.keys-in-use');

/** Shorter values are too likely to occur by chance (and no provider key is that short). */
const MIN_LENGTH = 8;

/** Names of variables that hold credentials: `…_API_KEY`, `…_KEY`, `…_TOKEN`, `…_SECRET`, `…_PASSWORD`… */
const CREDENTIAL_VARIABLE = /(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;

function registry(): Set<string> {
  const g = globalThis as Record<symbol, unknown>;
  let set = g[SECRETS_REGISTRY] as Set<string> | undefined;
  if (!set) {
    set = new Set();
    g[SECRETS_REGISTRY] = set;
  }
  return set;
}

function isSecretValue(value: string | undefined): value is string {
  return value !== undefined && value.trim().length >= MIN_LENGTH && !PLACEHOLDER_KEYS.has(value);
}

/** Remembers a credential a request carried (a header, a `key` query parameter). */
export function noteSecret(value: string): void {
  if (isSecretValue(value)) registry().add(value);
}

/** A request's headers, as `Headers.forEach` lists them. */
export interface HeaderList {
  forEach(visit: (value: string, name: string) => void): void;
}

/**
 * The credentials a request carries: the value of every header and query parameter whose name
 * denotes one (`authorization`, `x-api-key`, `x-portkey-api-key`, `?key=`, `?client_secret=`,
 * `X-Amz-Signature`…). Basic credentials are decoded (the `user:password` pair and the password
 * go too); a SigV4 `authorization` header yields the access key id and the signature.
 */
export function credentialsOf(headers: HeaderList, url: string): string[] {
  const out: string[] = [];
  headers.forEach((value, name) => {
    if (isCredentialName(name, 'header')) out.push(...headerCredentials(name, value));
  });
  if (url.includes('?'))
    try {
      for (const [name, value] of new URL(url).searchParams)
        if (isCredentialName(name, 'query')) {
          out.push(value);
          // X-Amz-Credential: <access key id>/<date>/<region>/<service>/aws4_request
          if (/credential$/i.test(name)) out.push(value.split('/')[0]);
        }
    } catch {
      // not a URL: no query
    }
  return out.filter((v) => v !== '');
}

function headerCredentials(name: string, value: string): string[] {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') return authorization(value.trim());
  if (lower === 'cookie') return cookies(value);
  return [value.trim()];
}

function authorization(value: string): string[] {
  const sigv4 = /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\/.*Signature=([0-9a-f]+)/i.exec(value);
  // A signature made with the replay placeholder key signs nothing worth hiding (nor is it a key).
  if (sigv4) return PLACEHOLDER_KEYS.has(sigv4[1]) ? [sigv4[1]] : [sigv4[1], sigv4[2]];
  const basic = /^basic\s+(\S+)$/i.exec(value);
  if (basic) {
    const pair = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    return colon < 0 ? [basic[1], pair] : [basic[1], pair, pair.slice(colon + 1)];
  }
  const scheme = /^[A-Za-z][\w-]*\s+(\S.*)$/.exec(value);
  return [scheme ? scheme[1] : value];
}

function cookies(value: string): string[] {
  const out = [value.trim()];
  for (const pair of value.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0) out.push(pair.slice(at + 1).trim());
  }
  return out;
}

/** Per registry, the value each credential header had when last noted: most requests repeat them. */
const lastNoted = new WeakMap<Set<string>, Map<string, string>>();

const NO_HEADERS: HeaderList = { forEach: () => undefined };

/**
 * Notes every credential a request carries (see `credentialsOf`). On the path of every request:
 * a header whose value was noted already costs a lookup.
 */
export function noteCredentials(headers: HeaderList, url: string): void {
  const secrets = registry();
  let seen = lastNoted.get(secrets);
  if (!seen) {
    seen = new Map();
    lastNoted.set(secrets, seen);
  }
  const noted = seen;
  headers.forEach((value, name) => {
    if (noted.get(name) === value || !isCredentialName(name, 'header')) return;
    noted.set(name, value);
    for (const credential of headerCredentials(name, value))
      if (isSecretValue(credential)) secrets.add(credential);
  });
  if (url.includes('?')) for (const value of credentialsOf(NO_HEADERS, url)) noteSecret(value);
}

/** The credential variables of an environment with their values (placeholders and short values left out). */
export function credentialVariables(env: NodeJS.ProcessEnv): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (const [name, value] of Object.entries(env))
    if (CREDENTIAL_VARIABLE.test(name) && isSecretValue(value)) out.push({ name, value });
  return out;
}

/** Every credential in use here: the noted ones, this process's credential variables, and `extra`. */
export function secretsInUse(extra: Iterable<string> = [], env: NodeJS.ProcessEnv = process.env): string[] {
  const values = new Set(registry());
  for (const { value } of credentialVariables(env)) values.add(value);
  for (const value of extra) if (isSecretValue(value)) values.add(value);
  return [...values];
}

/**
 * What a text leaks, named without the key itself (and how it is written, when encoded or
 * escaped); undefined when it holds no credential in use in any form.
 */
export function findSecretInUse(text: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const variables = credentialVariables(env);
  for (const key of secretsInUse([], env)) {
    const form = formFound(text, key);
    if (form === undefined) continue;
    const variable = variables.find((v) => v.value === key)?.name;
    const what = variable
      ? `the value of ${variable}`
      : `a credential a request carried (${key.slice(0, 3)}…, ${key.length} characters)`;
    return form === 'as is' ? what : `${what}, ${form}`;
  }
  return undefined;
}
