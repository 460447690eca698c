/**
 * Secrets never reach a trace, a timeline or a recording. `scrubText` replaces
 * credentials found in free text; `scrubSecrets` walks JSON-like data, scrubbing
 * every string and blanking the values of credential-named keys (headers such as
 * `authorization` / `x-api-key`, `password`, `client_secret`…).
 *
 * What it knows: OpenAI (`sk-…`, `sk-proj-…`) and Anthropic (`sk-ant-…`) keys, Google
 * API keys (`AIza…`), bearer and basic credentials, credential headers written as
 * text, AWS access key ids and secret keys, GitHub tokens (`ghp_…`, `github_pat_…`),
 * Slack tokens, Stripe keys, JWTs, PEM private keys, and credentials in URLs
 * (`?key=…`, `user:password@host`). Add your own with `options.patterns` / `options.keys`.
 */

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

export interface ScrubOptions {
  /** More patterns to blank out (every match is replaced; use the `g` flag or not, either works). */
  patterns?: readonly RegExp[];
  /** More key names whose values are blanked (compared case-, `-`- and `_`-insensitively). */
  keys?: readonly string[];
}

type Rule = [pattern: RegExp, replace: (match: string, ...groups: string[]) => string];

const whole = () => REDACTED;
/** Keeps the first capture group (a header name, `Bearer `…) and blanks the rest. */
const keepPrefix = (_match: string, prefix: string) => `${prefix}${REDACTED}`;

// Order matters: the specific shapes first, so a header line is not half-scrubbed by a
// token pattern and then missed by the header one.
const RULES: Rule[] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, whole],
  // `authorization: Bearer abc`, `"x-api-key": "sk-…"`, `api_key=…` written as text.
  [
    /((?:^|[\s{,;"'])(?:proxy-)?(?:authorization|x-api-key|api-key|apikey|api_key|x-goog-api-key|cookie|set-cookie|x-auth-token|client_secret|password)["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;}]+/gim,
    keepPrefix,
  ],
  [/(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi, keepPrefix],
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, whole],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, whole],
  [/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g, whole],
  [/\bAIza[0-9A-Za-z_-]{35}/g, whole],
  [/\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, whole],
  [
    /((?:aws_secret_access_key|aws_session_token|secretAccessKey|sessionToken)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{16,}/gi,
    keepPrefix,
  ],
  [/\bgh[pousr]_[A-Za-z0-9]{30,255}\b/g, whole],
  [/\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, whole],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, whole],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, whole],
  // Credentials in URLs: ?key=…, &access_token=…, https://user:password@host
  [
    /([?&](?:key|api_key|apikey|api-key|access_token|token|auth|sig|signature|x-goog-api-key)=)[^&#\s"']+/gi,
    keepPrefix,
  ],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"']+:)[^\s@/"']+(?=@)/gi, keepPrefix],
];

/** Key names (folded: lower case, no `-` / `_`) whose values are credentials. */
const SECRET_KEYS = new Set(
  [
    'authorization',
    'proxy-authorization',
    'x-api-key',
    'api-key',
    'apikey',
    'x-goog-api-key',
    'x-auth-token',
    'auth-token',
    'api-token',
    'access-token',
    'refresh-token',
    'id-token',
    'session-token',
    'token',
    'bearer',
    'cookie',
    'set-cookie',
    'password',
    'passwd',
    'secret',
    'client-secret',
    'private-key',
    'secret-access-key',
    'aws-secret-access-key',
  ].map(fold),
);

function fold(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

function globalCopy(pattern: RegExp): RegExp {
  return pattern.flags.includes('g') ? new RegExp(pattern) : new RegExp(pattern.source, `${pattern.flags}g`);
}

/** The text with every credential it contains replaced by `[REDACTED]`. */
export function scrubText(text: string, options?: ScrubOptions): string {
  let out = text;
  for (const [pattern, replace] of RULES) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, replace as (match: string, ...rest: unknown[]) => string);
  }
  for (const pattern of options?.patterns ?? []) out = out.replace(globalCopy(pattern), REDACTED);
  return out;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/**
 * A deep copy of JSON-like data with secrets removed: every string goes through
 * `scrubText`, and the value under a credential-named key (`authorization`, `x-api-key`,
 * `password`, `token`…) becomes `[REDACTED]` whatever it was. Arrays and plain objects
 * (of any realm) are copied; Maps become Maps; other values are returned as they are.
 * Cycles are preserved.
 */
export function scrubSecrets(value: unknown, options?: ScrubOptions): unknown {
  const extraKeys = new Set((options?.keys ?? []).map(fold));
  const seen = new Map<object, unknown>();
  const isSecretKey = (key: string) => SECRET_KEYS.has(fold(key)) || extraKeys.has(fold(key));

  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubText(v, options);
    if (typeof v !== 'object' || v === null) return v;
    const done = seen.get(v);
    if (done !== undefined) return done;
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      seen.set(v, out);
      for (const item of v) out.push(walk(item));
      return out;
    }
    if (v instanceof Map) {
      const out = new Map<unknown, unknown>();
      seen.set(v, out);
      for (const [k, item] of v)
        out.set(k, typeof k === 'string' && isSecretKey(k) && item != null ? REDACTED : walk(item));
      return out;
    }
    if (!isPlainObject(v)) return v;
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    for (const [k, item] of Object.entries(v)) {
      out[k] = isSecretKey(k) && item != null && typeof item !== 'boolean' ? REDACTED : walk(item);
    }
    return out;
  };
  return walk(value);
}
