import { EXPECTED_COLOR, RECEIVED_COLOR, stringify } from './matcher-utils';

// Keeps one step on one line next to its counterpart.
const MAX_STEP_WIDTH = 72;

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** `name {"compact": "args"}`; `stringify` prints asymmetric matchers by name. */
export function stepText(name: string, args: unknown, hasArgs = true): string {
  const text = hasArgs ? `${name} ${stringify(args).replace(/\s*\n\s*/g, ' ')}` : name;
  return truncate(text, MAX_STEP_WIDTH);
}

export interface Cell {
  index: number;
  text: string;
}

export interface Row {
  expected?: Cell;
  received?: Cell;
  /** Drawn with a `>` in the gutter: the step that breaks the expectation. */
  marked?: boolean;
}

/** Expected and received steps in two columns, one step per line. */
export function sideBySide(rows: readonly Row[]): string {
  const lastIndex = Math.max(0, ...rows.flatMap((r) => [r.expected?.index ?? 0, r.received?.index ?? 0]));
  const indexWidth = String(lastIndex).length;
  const cell = (c: Cell | undefined) => (c ? `${String(c.index).padStart(indexWidth)} ${c.text}` : '');
  const pad = ' '.repeat(indexWidth + 1);
  const leftWidth = Math.max(pad.length + 'Expected'.length, ...rows.map((r) => cell(r.expected).length));
  const line = (gutter: string, left: string, right: string) =>
    right === ''
      ? `${gutter} ${EXPECTED_COLOR(left)}`.trimEnd()
      : `${gutter} ${EXPECTED_COLOR(left.padEnd(leftWidth))}   ${RECEIVED_COLOR(right)}`;
  return [
    line(' ', `${pad}Expected`, `${pad}Received`),
    ...rows.map((r) => line(r.marked ? '>' : ' ', cell(r.expected), cell(r.received))),
  ].join('\n');
}
