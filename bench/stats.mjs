/** The bench's summary of a set of samples, shared by bench/run.mjs and its phases. */
export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return {
    n: s.length,
    median: s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2,
    p95: at(0.95),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    min: s[0],
  };
}

/** JSON.stringify's replacer for bench/results.json: figures rounded to 4 significant digits. */
export const roundFigures = (_k, v) =>
  typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(4)) : v;
