/** The plain-text tables of a sweep and a provider matrix (aligned columns, no colours). */

export function columns(rows: readonly string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows)
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

interface CallLike {
  operation: string;
  tool?: string;
  ordinal: number;
}

interface VariantLike {
  call: CallLike;
  fault: { code: string };
  verdict: string;
  reasons: readonly string[];
}

const callName = (c: CallLike) => `${c.tool ? `${c.tool} (${c.operation})` : c.operation} #${c.ordinal}`;

export function sweepTable(calls: readonly CallLike[], variants: readonly VariantLike[]): string {
  const handled = variants.filter((v) => v.verdict === 'handled').length;
  const head = `Fault sweep: ${calls.length} call${calls.length === 1 ? '' : 's'}, ${variants.length} fault${variants.length === 1 ? '' : 's'}: ${handled} handled, ${variants.length - handled} not handled`;
  if (variants.length === 0)
    return `${head}\n  (the baseline made no call to a world operation or tool fake, so there was nothing to fail)`;
  const rows = [
    ['call', 'fault', 'verdict'],
    ...variants.map((v) => [
      callName(v.call),
      v.fault.code,
      v.verdict === 'handled' ? '✓ handled' : `✗ not handled: ${v.reasons.join('; ')}`,
    ]),
  ];
  return [head, ...columns(rows).map((l) => `  ${l}`)].join('\n');
}
