/**
 * Secrets never reach a trace, a timeline or a recording. `scrubText` replaces
 * credentials found in free text; `scrubSecrets` walks JSON-like data, scrubbing
 * every string and blanking the values of credential-named keys.
 *
 * Credentials are recognised by rule (./names.ts): a field, header or query parameter whose
 * name denotes a key, token, secret, password, signature, credential or session, however it is
 * spelled (`x-portkey-api-key`, `client_secret`, `X-Amz-Signature`, `appid`…); and by shape:
 * OpenAI (`sk-…`, `sk-proj-…`) and Anthropic (`sk-ant-…`) keys, Google API keys (`AIza…`) and
 * OAuth tokens, bearer and basic credentials, AWS access key ids and secret keys, GitHub, GitLab,
 * Slack, Stripe, Hugging Face, Groq, xAI and npm tokens, JWTs, PEM private keys, and passwords in
 * URLs (`user:password@host`). Values known to be secret (the keys in use) are blanked in every
 * form they take (./encoded.ts). Add your own with `options.patterns` / `options.keys`.
 */
import { type Literal, literalForms, replaceLiterals } from './encoded';
import { isCredentialName, type NameContext } from './names';

export { formFound } from './encoded';
export { isCredentialName, type NameContext, wordsOf } from './names';

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

export interface ScrubOptions {
  /** More patterns to blank out (every match is replaced; use the `g` flag or not, either works). */
  patterns?: readonly RegExp[];
  /** More key names whose values are blanked (compared case-, `-`- and `_`-insensitively). */
  keys?: readonly string[];
  /**
   * Exact values to blank wherever they appear, whatever they look like (the keys in use:
   * a gateway key has no known shape). Their JSON-, URL- and HTML-escaped forms go too, and
   * their base64 and hex forms, inside longer encoded strings as well.
   */
  values?: Iterable<string>;
}

type Rule = [pattern: RegExp, replace: (match: string, ...groups: string[]) => string];

const whole = () => REDACTED;
/** Keeps the first capture group (a header name, `Bearer `…) and blanks the rest. */
const keepPrefix = (_match: string, prefix: string) => `${prefix}${REDACTED}`;

/**
 * An escape in JSON text (`\"`, `\n`…): it ends a value, so a string inside a JSON string stays
 * well-formed when its value is blanked.
 */
const ESCAPE = String.raw`\\[\\"'nrtbfu/]`;
/**
 * A credential written after a header name: everything up to a delimiter, except closing
 * punctuation that ends the sentence around it (`(key: abc) then`, `key: abc.`), which stays.
 */
const VALUE = String.raw`(?:(?!${ESCAPE}|\[REDACTED\])[^\s"',;}])+?(?=[)\]>.!?]*(?:[\s"',;}]|${ESCAPE}|$))`;
/** The same for a query parameter's value, which also ends at `&`, `;` and `#`. */
const QUERY_VALUE = String.raw`(?:(?!${ESCAPE}|\[REDACTED\])[^&#;\s"'])+?(?=[)\]>.!?]*(?:[&#;\s"']|${ESCAPE}|$))`;

/**
 * A name followed by a value, in text: `password=…`, `"x-portkey-api-key": "…"`, `Authorization: Basic …`.
 * Only the name is matched here; its value is blanked when the name denotes a credential.
 */
const NAMED = /(?<=^|[\s{([,;"'])([A-Za-z][\w.-]*)(\\?["']?\s*[:=]\s*\\?["']?)/gm;
/** A query parameter's name: `?client_secret=`, `&X-Amz-Signature=` (also `&amp;appid=` in HTML). */
const QUERY_NAMED = /(?<=[?&;])([^=&#\s"'<>?]+)(=)/g;
/** `Bearer `, `Basic `: part of the value when there, never taken for the value itself. */
const SCHEME = String.raw`(?:(?:bearer|basic|token)\s+|(?!(?:bearer|basic|token)\s))`;
const NAMED_VALUE = new RegExp(`${SCHEME}${VALUE}`, 'iy');
const QUERY_NAMED_VALUE = new RegExp(QUERY_VALUE, 'y');

/** Values that stand for nothing: `null`, `none`, `true`. */
const PLACEHOLDER = /^(?:null|undefined|none|nil|true|false|empty|redacted|hidden)$/i;
/** A type or keyword in code: `token: string`, `secrets: readonly string[]`, `token = new Map()`. */
const CODE_WORD =
  /^(?:string|number|boolean|bigint|symbol|object|unknown|any|never|void|readonly|new|await|typeof|keyof|function|async|const|let|var|this|self|return|Optional|Union|str|bytes|int|dict|list)\b/;

/**
 * A value that refers to a credential instead of being one: code and configuration (`getToken()`,
 * `options.apiKey`, `process.env.DB_PASSWORD`, `${API_KEY}`, `OPENAI_KEY_VAR`, a type, a regular
 * expression or template literal, `<your key>`) and the empty ones (`null`, `***`).
 */
function isReference(value: string): boolean {
  if (value.length < 2 || /^[*x\u2022.]+$/i.test(value) || PLACEHOLDER.test(value)) return true;
  if (CODE_WORD.test(value) || /^[{[(/<`]/.test(value) || value.includes('${')) return true;
  if (/^\$\{?[A-Za-z_]\w*\}?$/.test(value) || /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return true;
  const chain = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(\()?/.exec(value);
  if (!chain) return false;
  if (chain[1] === '(') return true;
  if (chain[0] !== value || !value.includes('.')) return false;
  const segments = value.split('.');
  return (
    /^(?:process|os|import)$/.test(segments[0]) || isCredentialName(segments[segments.length - 1], 'field')
  );
}

/** Blanks the value after every name `names` finds that denotes a credential `where`. */
function scrubNamed(text: string, names: RegExp, valuePattern: RegExp, where: NameContext): string {
  names.lastIndex = 0;
  let out = '';
  let from = 0;
  for (let m = names.exec(text); m !== null; m = names.exec(text)) {
    if (!isCredentialName(m[1], where)) continue;
    const valueAt = m.index + m[0].length;
    valuePattern.lastIndex = valueAt;
    const value = valuePattern.exec(text);
    if (!value) continue;
    // `password: x-api-key: k-1`: what follows is another name, whose own value is the credential.
    if (/[:=]$/.test(value[0])) {
      names.lastIndex = valueAt;
      continue;
    }
    const scheme = /^(?:bearer|basic|token)\s+/i.exec(value[0])?.[0] ?? '';
    const bare = value[0].slice(scheme.length);
    if (where === 'field' ? isReference(bare) : /^[`<{\u2026]/.test(bare) || bare.includes('${')) continue;
    out += text.slice(from, valueAt) + REDACTED;
    from = valueAt + value[0].length;
    names.lastIndex = from;
  }
  return from === 0 ? text : out + text.slice(from);
}

const PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g;

/** Credentials by their shape. */
const RULES: Rule[] = [
  [/(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi, keepPrefix],
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, whole],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, whole],
  [/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g, whole],
  [/\bAIza[0-9A-Za-z_-]{35}/g, whole],
  [/\bya29\.[0-9A-Za-z_-]{20,}/g, whole],
  [/\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, whole],
  [
    /((?:aws_secret_access_key|aws_session_token|secretAccessKey|sessionToken)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{16,}/gi,
    keepPrefix,
  ],
  [/\bgh[pousr]_[A-Za-z0-9]{30,255}\b/g, whole],
  [/\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, whole],
  [/\bglpat-[A-Za-z0-9_-]{20,}/g, whole],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, whole],
  [/\b(?:hf_[A-Za-z0-9]{30,}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}|npm_[A-Za-z0-9]{36})\b/g, whole],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, whole],
  // https://user:password@host
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"']+:)[^\s@/"']+(?=@)/gi, keepPrefix],
];

function fold(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

function globalCopy(pattern: RegExp): RegExp {
  return pattern.flags.includes('g') ? new RegExp(pattern) : new RegExp(pattern.source, `${pattern.flags}g`);
}

interface Compiled {
  literals: Literal[];
  patterns: RegExp[];
}

function compile(options: ScrubOptions | undefined): Compiled {
  return {
    literals: options?.values ? literalForms(options.values) : [],
    patterns: (options?.patterns ?? []).map(globalCopy),
  };
}

function scrubCompiled(text: string, c: Compiled): string {
  // Exact values first: a pattern that blanked part of one would leave the rest unmatched.
  let out = replaceLiterals(text, c.literals, REDACTED);
  PEM.lastIndex = 0;
  out = out.replace(PEM, REDACTED);
  // Named values before shapes: `Authorization: Bearer sk-…` goes whole, scheme and all.
  // Query parameters first: a value in free text ends at a space, not at `&`.
  out = scrubNamed(out, QUERY_NAMED, QUERY_NAMED_VALUE, 'query');
  out = scrubNamed(out, NAMED, NAMED_VALUE, 'field');
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
  return replaceLiterals(text, literalForms(values), REDACTED);
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** Keys whose objects hold HTTP headers, judged by the broader rule for header names. */
const HEADERS = /headers$/i;

/**
 * A deep copy of JSON-like data with secrets removed: every string goes through
 * `scrubText`, and the value under a credential-named key (`authorization`, `x-api-key`,
 * `password`, `clientSecret`…; under `headers`, also `x-session-id`, `X-Amz-Signature`…) becomes
 * `[REDACTED]` whatever it was. Arrays and plain objects (of any realm) are copied; Maps become
 * Maps; other values are returned as they are. Cycles are preserved.
 */
export function scrubSecrets(value: unknown, options?: ScrubOptions): unknown {
  const extraKeys = new Set((options?.keys ?? []).map(fold));
  const compiled = compile(options);
  const seen = new Map<object, unknown>();
  const isSecretKey = (key: string, where: NameContext) =>
    isCredentialName(key, where) || (extraKeys.size > 0 && extraKeys.has(fold(key)));
  const blank = (item: unknown) => item != null && typeof item !== 'boolean';

  const walk = (v: unknown, where: NameContext): unknown => {
    if (typeof v === 'string') return scrubCompiled(v, compiled);
    if (typeof v !== 'object' || v === null) return v;
    const done = seen.get(v);
    if (done !== undefined) return done;
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      seen.set(v, out);
      for (const item of v) out.push(walk(item, 'field'));
      return out;
    }
    if (v instanceof Map) {
      const out = new Map<unknown, unknown>();
      seen.set(v, out);
      for (const [k, item] of v) {
        const named = typeof k === 'string';
        out.set(
          named ? scrubCompiled(k, compiled) : k,
          named && isSecretKey(k, where) && blank(item) ? REDACTED : walk(item, childContext(k)),
        );
      }
      return out;
    }
    if (!isPlainObject(v)) return v;
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    // A log-probability entry's `token` is a piece of the answer, not a credential.
    const logprob = Object.hasOwn(v, 'logprob');
    for (const [k, item] of Object.entries(v)) {
      const secret = isSecretKey(k, where) && !(logprob && k === 'token');
      out[scrubCompiled(k, compiled)] = secret && blank(item) ? REDACTED : walk(item, childContext(k));
    }
    return out;
  };
  return walk(value, 'field');
}

function childContext(key: unknown): NameContext {
  return typeof key === 'string' && HEADERS.test(key) ? 'header' : 'field';
}
