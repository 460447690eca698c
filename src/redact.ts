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
  /**
   * Exact values to blank wherever they appear, whatever they look like (the keys in use:
   * a gateway key has no known shape). Their JSON-, URL- and HTML-escaped forms go too.
   */
  values?: Iterable<string>;
}

type Rule = [pattern: RegExp, replace: (match: string, ...groups: string[]) => string];

const whole = () => REDACTED;
/** Keeps the first capture group (a header name, `Bearer `…) and blanks the rest. */
const keepPrefix = (_match: string, prefix: string) => `${prefix}${REDACTED}`;

/**
 * A credential written after a header name: everything up to a delimiter, except closing
 * punctuation that ends the sentence around it (`(key: abc) then`, `key: abc.`), which stays.
 */
const VALUE = String.raw`(?!\[REDACTED\])[^\s"',;}]+?(?=[)\]>.!?]*(?:[\s"',;}]|$))`;
/** The same for a query parameter's value, which also ends at `&` and `#`. */
const QUERY_VALUE = String.raw`(?!\[REDACTED\])[^&#\s"']+?(?=[)\]>.!?]*(?:[&#\s"']|$))`;

// Order matters: the specific shapes first, so a header line is not half-scrubbed by a
// token pattern and then missed by the header one.
const RULES: Rule[] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, whole],
  // `authorization: Bearer abc`, `"x-api-key": "sk-…"`, `api_key=…` written as text.
  [
    new RegExp(
      `((?:^|[\\s{(\\[,;"'])(?:proxy-)?(?:authorization|x-api-key|api-key|apikey|api_key|x-goog-api-key|cookie|set-cookie|x-auth-token|client_secret|password)["']?\\s*[:=]\\s*["']?)(?:(?:bearer|basic|token)\\s+)?${VALUE}`,
      'gim',
    ),
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
    new RegExp(
      `([?&](?:key|api_key|apikey|api-key|access_token|token|auth|sig|signature|x-goog-api-key)=)${QUERY_VALUE}`,
      'gi',
    ),
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

const htmlEscaped = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** Every form a value takes in the files written: as is, and escaped for JSON, URLs and HTML. */
function literalForms(values: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    if (value === '') continue;
    const json = JSON.stringify(value).slice(1, -1);
    for (const form of [
      value,
      json,
      JSON.stringify(json).slice(1, -1),
      encodeURIComponent(value),
      htmlEscaped(value),
    ])
      forms.add(form);
  }
  // Longest first, so a value that contains another is blanked whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

interface Compiled {
  literals: string[];
  patterns: RegExp[];
}

function compile(options: ScrubOptions | undefined): Compiled {
  return {
    literals: options?.values ? literalForms(options.values) : [],
    patterns: (options?.patterns ?? []).map(globalCopy),
  };
}

function replaceLiterals(text: string, literals: readonly string[]): string {
  let out = text;
  for (const literal of literals) if (out.includes(literal)) out = out.split(literal).join(REDACTED);
  return out;
}

function scrubCompiled(text: string, c: Compiled): string {
  // Exact values first: a pattern that blanked part of one would leave the rest unmatched.
  let out = replaceLiterals(text, c.literals);
  for (const [pattern, replace] of RULES) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, replace as (match: string, ...rest: unknown[]) => string);
  }
  for (const pattern of c.patterns) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, REDACTED);
  }
  return out;
}

/** The text with every credential it contains replaced by `[REDACTED]`. */
export function scrubText(text: string, options?: ScrubOptions): string {
  return scrubCompiled(text, compile(options));
}

/** Only the exact values (and their escaped forms) blanked: for text whose every string was already scrubbed. */
export function scrubValues(text: string, values: Iterable<string>): string {
  return replaceLiterals(text, literalForms(values));
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
  const compiled = compile(options);
  const seen = new Map<object, unknown>();
  const isSecretKey = (key: string) => SECRET_KEYS.has(fold(key)) || extraKeys.has(fold(key));

  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubCompiled(v, compiled);
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
        out.set(
          typeof k === 'string' ? scrubCompiled(k, compiled) : k,
          typeof k === 'string' && isSecretKey(k) && item != null ? REDACTED : walk(item),
        );
      return out;
    }
    if (!isPlainObject(v)) return v;
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    for (const [k, item] of Object.entries(v)) {
      out[scrubCompiled(k, compiled)] =
        isSecretKey(k) && item != null && typeof item !== 'boolean' ? REDACTED : walk(item);
    }
    return out;
  };
  return walk(value);
}
