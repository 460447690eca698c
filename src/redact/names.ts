/**
 * Whether a name denotes a credential, by rule rather than by list: `x-portkey-api-key`,
 * `client_secret`, `X-Amz-Signature`, `sessionId` and `DB_PASSWORD` are recognised whatever
 * their prefix, casing or separators, while `max_tokens`, `promptTokenCount`, `idempotencyKey`
 * and a thinking block's `signature` are not.
 *
 * A name is cut into words (at separators and camelCase humps) and judged by its last word, the
 * noun it names, and the word before it. Where a name is found decides how broad the rule is:
 *
 * - `field` (a key of JSON-like data, `name: value` in text): keys, tokens, secrets, passwords,
 *   credentials, cookies and authorization; a signature here is a reasoning block's, not a secret.
 * - `header`: also signatures, sessions, `…-key` and `auth` (a header that is a key, unless it is
 *   a known non-secret such as `Idempotency-Key`).
 * - `query`: also `key`, `appid` and `app_id`, a key id, and the SigV4 `X-Amz-Credential`.
 */

export type NameContext = 'field' | 'header' | 'query';

/** Last words that name a credential wherever they are found (checked as suffixes: `accesstoken`). */
const CREDENTIAL_SUFFIXES = [
  'token',
  'secret',
  'secrets',
  'password',
  'passwd',
  'passphrase',
  'credential',
  'credentials',
  'apikey',
  'cookie',
  'authorization',
] as const;

/** Last words that are a credential when they are the whole word. */
const CREDENTIAL_WORDS = new Set(['bearer', 'jwt', 'otp']);

/** Words before `token` that make it a position, not a credential (`page_token`, `next_token`). */
const NOT_A_CREDENTIAL_TOKEN = new Set(['page', 'next', 'continuation', 'cursor', 'sync', 'pagination']);

/** Words before `key` that make it a credential in data (`apiKey`, `secret_access_key`). */
const SECRET_KEY_KINDS = new Set([
  'api',
  'access',
  'secret',
  'private',
  'client',
  'app',
  'master',
  'subscription',
  'encryption',
  'signing',
  'service',
  'license',
  'auth',
  'functions',
]);

/** Words before `key` in a header or query name that make it something other than a credential. */
const PUBLIC_KEY_KINDS = new Set([
  'idempotency',
  'websocket',
  'socket',
  'public',
  'cache',
  'partition',
  'sort',
  'dedup',
]);

/** Header and query words for a session or a signature. */
const SESSION_OR_SIGNATURE = new Set(['signature', 'sig', 'session', 'sid', 'auth']);

/** The words of a name, lower case: `X-Amz-Signature` → x amz signature; `AWSAccessKeyId` → aws access key id. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

function judge(name: string, where: NameContext): boolean {
  // A number at the end numbers the credential: `X-Hub-Signature-256`, `password2`.
  const words = wordsOf(name)
    .filter((w, i, all) => i < all.length - 1 || !/^\d+$/.test(w))
    .map((w) => w.replace(/(?<=[a-z])\d+$/, ''));
  const last = words[words.length - 1];
  if (last === undefined) return false;
  const before = words[words.length - 2];
  if (CREDENTIAL_SUFFIXES.some((s) => last.endsWith(s)))
    return !(last === 'token' && before !== undefined && NOT_A_CREDENTIAL_TOKEN.has(before));
  if (CREDENTIAL_WORDS.has(last)) return true;
  // `db_pwd`; a `pwd` alone is a working directory.
  if (last === 'pwd') return before !== undefined;
  if (last === 'key') {
    if (where === 'field') return before !== undefined && SECRET_KEY_KINDS.has(before);
    if (where === 'query' && before === undefined) return true;
    return before === undefined || !PUBLIC_KEY_KINDS.has(before);
  }
  if (where === 'field') return false;
  if (SESSION_OR_SIGNATURE.has(last) || last.endsWith('sessid') || last.endsWith('sessionid')) return true;
  if (last === 'id' && (before === 'session' || before === 'key')) return true;
  if (where === 'header') return false;
  return last === 'appid' || (last === 'id' && before === 'app');
}

/** Names seen before and their verdict: headers repeat on every request. */
const seen: Record<NameContext, Map<string, boolean>> = {
  field: new Map(),
  header: new Map(),
  query: new Map(),
};
const MEMO_LIMIT = 2_000;

/** Whether `name`, found `where`, denotes a credential (see the module comment). */
export function isCredentialName(name: string, where: NameContext = 'field'): boolean {
  const memo = seen[where];
  let verdict = memo.get(name);
  if (verdict === undefined) {
    verdict = judge(name, where);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(name, verdict);
  }
  return verdict;
}
