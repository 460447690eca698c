/** Cassette ages: `cassetteMaxAge: '90d'` and how long ago a fixture was recorded, in words. */

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

/** `'90d'` → 90 days in milliseconds (the options schema has checked the shape). */
export function parseAge(text: string): { ms: number; text: string } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w|y)\s*$/.exec(text);
  if (!m) throw new Error(`not an age: ${JSON.stringify(text)} (expected e.g. "90d", "12h", "2w")`);
  return { ms: Number(m[1]) * UNIT_MS[m[2]], text: text.trim() };
}

/** How long ago, in the largest whole unit: `120 days`, `3 hours`. */
export function ageInWords(ms: number): string {
  const units: Array<[number, string]> = [
    [UNIT_MS.d, 'day'],
    [UNIT_MS.h, 'hour'],
    [UNIT_MS.m, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return `${Math.max(0, Math.floor(ms / 1000))} seconds`;
}
