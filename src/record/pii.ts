/**
 * Personal data in recorded requests, replaced by stable placeholders (`<email-1>`,
 * `<card-2>`): numbered in the order the values first appear in one request, so replay
 * (which numbers the live request the same way) computes the same match keys and the same
 * recorded request, and can put the live values back into a recorded answer that quotes them.
 */

import type { PiiKind } from '../options';

/** In the order they are looked for: the most specific first (a card number is not also a phone number). */
export const PII_KINDS: readonly PiiKind[] = ['email', 'card', 'iban', 'ssn', 'phone', 'ip'];

/** `true` (every kind) or the kinds to replace. */
export type PiiSetting = boolean | readonly PiiKind[];

export function piiKinds(setting: PiiSetting | undefined): PiiKind[] {
  if (setting === true) return [...PII_KINDS];
  if (!setting) return [];
  return PII_KINDS.filter((k) => setting.includes(k));
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function ibanValid(text: string): boolean {
  const s = text.replace(/\s+/g, '');
  if (s.length < 15 || s.length > 34) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of code) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1;
}

/** One detector per kind; each pattern is global, and `valid` weeds out look-alikes (order numbers that fail Luhn). */
const DETECTORS: Record<PiiKind, { pattern: RegExp; valid?: (match: string) => boolean }> = {
  email: { pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  card: {
    pattern: /\b\d(?:[ -]?\d){12,18}\b/g,
    valid: (m) => luhn(m.replace(/[ -]/g, '')),
  },
  iban: {
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g,
    valid: ibanValid,
  },
  ssn: { pattern: /\b\d{3}-\d{2}-\d{4}\b/g },
  // International (+country code), or the North American shape: a bare run of digits is an id, not a phone number.
  phone: {
    pattern:
      /\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}\b|(?:\(\d{3}\)\s?|\b\d{3}[ .-])\d{3}[ .-]\d{4}\b/g,
    valid: (m) => {
      const digits = m.replace(/\D/g, '').length;
      return digits >= 8 && digits <= 15;
    },
  },
  ip: { pattern: /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g },
};

const PLACEHOLDER = /<(email|card|phone|ssn|iban|ip)-(\d+)>/g;

/** Numbers the values of one request (and its answer) as they are met; the same value keeps its placeholder. */
export class PiiScanner {
  private readonly byValue = new Map<string, string>();
  private readonly byPlaceholder = new Map<string, string>();
  private readonly counts = new Map<PiiKind, number>();

  constructor(private readonly kinds: readonly PiiKind[]) {}

  get active(): boolean {
    return this.kinds.length > 0;
  }

  /** The text with every value of the chosen kinds replaced by its placeholder. */
  replace(text: string): string {
    let out = text;
    for (const kind of this.kinds) {
      const { pattern, valid } = DETECTORS[kind];
      out = out.replace(pattern, (match) => {
        if (valid && !valid(match)) return match;
        let placeholder = this.byValue.get(match);
        if (!placeholder) {
          const n = (this.counts.get(kind) ?? 0) + 1;
          this.counts.set(kind, n);
          placeholder = `<${kind}-${n}>`;
          this.byValue.set(match, placeholder);
          this.byPlaceholder.set(placeholder, match);
        }
        return placeholder;
      });
    }
    return out;
  }

  /** The text with the placeholders this scanner handed out turned back into their values. */
  restore(text: string): string {
    if (this.byPlaceholder.size === 0) return text;
    return text.replace(PLACEHOLDER, (placeholder) => this.byPlaceholder.get(placeholder) ?? placeholder);
  }
}
