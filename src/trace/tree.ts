/** A trace as a tree in the terminal: `understudy report <trace.json>`. */
import { stripVTControlCharacters } from 'node:util';
import { describeOmissions, type Omissions } from './budget';
import { errorLines } from './plain';
import { parsed, type SpanNode, type TraceTree } from './read';
import { assistantLines, closing, toolLine, turnView } from './session-view';

export interface TreeOptions {
  color?: boolean;
  /** Do not shorten arguments, results and messages. */
  full?: boolean;
}

/** Frames of an agent's stack the tree shows (`--full`: all). */
const RUN_FRAMES = 3;

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(n < 10 ? 1 : 0)} ms`);

export function renderTree(tree: TraceTree, options: TreeOptions = {}): string {
  const c = (code: number, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const red = (t: string) => c(31, t);
  const green = (t: string) => c(32, t);
  const yellow = (t: string) => c(33, t);
  const magenta = (t: string) => c(35, t);
  const dim = (t: string) => c(2, t);
  const bold = (t: string) => c(1, t);
  const max = options.full ? Number.POSITIVE_INFINITY : 100;
  const short = (value: unknown, n = max) => {
    const v = parsed(value);
    let text = typeof v === 'string' ? v : JSON.stringify(v);
    text = stripVTControlCharacters(String(text ?? '')).replace(/\s*\n\s*/g, ' ');
    return text.length > n ? `${text.slice(0, n - 1)}…` : text;
  };
  const lines: string[] = [];

  const describe = (node: SpanNode): string => {
    const a = node.fields;
    const bad = node.status.code === 2;
    switch (node.type) {
      case 'run': {
        const state = String(a.terminalState ?? '');
        const tags = [a.runKind, a.phase].filter(Boolean).join(', ');
        const final = a.finalMessage;
        return `${bold(`run ${a.runIndex ?? ''}`)} ${dim(`[${tags}]`)} ${bad ? red(state) : green(state)} ${dim(ms(node.duration))}${final !== undefined ? `  final: ${JSON.stringify(short(final, 80))}` : ''}`;
      }
      case 'model': {
        const response = parsed(a.outputMessages) as
          | { content?: string | null; toolCalls?: Array<{ name: string }> }
          | undefined;
        const cut = a.cutReason;
        const what =
          a.unmatched === true
            ? red('unmatched')
            : cut !== undefined
              ? `${red(`cut: ${cut}`)} ${response?.content ? `“${short(response.content, 60)}”` : ''}`.trimEnd()
              : response?.toolCalls?.length
                ? `→ ${response.toolCalls.map((t) => t.name).join(', ')}`
                : response?.content
                  ? `“${short(response.content, 70)}”`
                  : bad
                    ? red(short(node.status.message ?? 'error', 80))
                    : '';
        const fixture = a.fixtureId;
        return `${c(34, node.name)}${fixture ? dim(` fixture ${fixture}`) : ''}  ${what}  ${dim(ms(node.duration))}`;
      }
      case 'tool': {
        const outcome = String(a.outcome ?? '');
        const result = a.toolCallResult;
        const paint =
          outcome === 'error' || outcome === 'incomplete' ? red : outcome === 'unanswered' ? yellow : green;
        return `${c(36, `tool ${a.toolName ?? node.name}`)} ${short(a.toolCallArguments, max)}${result !== undefined ? ` ${dim('→')} ${short(result, max)}` : ''}  ${paint(outcome)}`;
      }
      case 'operation': {
        const override = a.overrideId ?? (a.override !== undefined ? short(a.override, 40) : undefined);
        const id = [a.operationPackageId, a.operationId].filter(Boolean).join('/');
        return `${magenta(`operation ${id || node.name}`)}${a.operationSeq !== undefined ? dim(` #${a.operationSeq}`) : ''} ${short(a.operationInput, 60)}  ${bad ? red(String(a.outcome ?? 'error')) : green(String(a.outcome ?? 'ok'))}${override !== undefined ? ` ${magenta(`[override ${override}]`)}` : ''}`;
      }
      case 'http': {
        const outcome = String(a.outcome ?? '');
        return `${yellow(`http ${a.httpMethod ?? ''} ${a.url ?? node.name}`)} ${bad ? red(outcome) : green(outcome)} ${dim(`msw handler ${a.httpHandler ?? ''} (${a.httpSource ?? ''})`)}  ${dim(ms(node.duration))}`;
      }
      case 'session': {
        const turns = Number(a.sessionTurns ?? 0);
        const how = closing(a);
        return `${bold(`session ${a.sessionIndex ?? ''}`)} ${c(34, String(a.protocol ?? ''))} ${dim(String(a.url ?? ''))}  ${bad ? red(how) : green(how)}  ${dim(`${turns} turn${turns === 1 ? '' : 's'} ${ms(node.duration)}`)}`;
      }
      case 'turn': {
        const t = turnView(a);
        const outcome = bad
          ? red(t.outcome)
          : t.outcome === 'interrupted'
            ? yellow(t.outcome)
            : green(t.outcome);
        return `${bold(`turn ${t.index}`)}  ${t.user === undefined ? dim('(no new input)') : short(t.user)}  ${outcome}`;
      }
      default:
        return `${node.name} ${dim(ms(node.duration))}`;
    }
  };

  /** A session turn's conversation under its heading: the answer, its tool calls, faults, its model calls. */
  const turnLines = (node: SpanNode, prefix: string) => {
    if (node.type !== 'turn') return;
    const t = turnView(node.fields);
    for (const line of assistantLines(t))
      lines.push(
        `${prefix}${
          'call' in line
            ? c(
                36,
                toolLine(line.call, (v) => short(v, 60)),
              )
            : line.cut
              ? yellow(short(line.said))
              : short(line.said)
        }`,
      );
    for (const fault of t.faults) lines.push(`${prefix}${red(short(fault))}`);
    if (t.modelCalls.length > 0)
      lines.push(
        `${prefix}${dim(`model call${t.modelCalls.length === 1 ? '' : 's'} ${t.modelCalls.join(', ')}`)}`,
      );
  };

  /** What the agent of a run threw (or why it timed out): name, message and its top frames. */
  const runError = (node: SpanNode, prefix: string) => {
    const event = node.events.find((e) => e.name === 'exception');
    if (node.type !== 'run' || !event) return;
    const a = event.fields;
    const error = {
      name: stripVTControlCharacters(String(a.exceptionType ?? 'Error')),
      message: stripVTControlCharacters(String(a.exceptionMessage ?? '')),
      ...(typeof a.exceptionStacktrace === 'string' && {
        stack: stripVTControlCharacters(a.exceptionStacktrace),
      }),
    };
    const [head, ...frames] = errorLines(error, options.full ? Number.POSITIVE_INFINITY : RUN_FRAMES);
    lines.push(`${prefix}${red(`agent error: ${short(head)}`)}`);
    for (const frame of frames) lines.push(`${prefix}${dim(frame.trim())}`);
  };

  const walk = (nodes: SpanNode[], prefix: string) => {
    nodes.forEach((node, i) => {
      const last = i === nodes.length - 1;
      lines.push(`${prefix}${last ? '└─ ' : '├─ '}${describe(node)}`);
      const inner = `${prefix}${last ? '   ' : '│  '}`;
      runError(node, `${inner}${node.children.length > 0 ? '│  ' : '   '}`);
      turnLines(node, `${inner}${node.children.length > 0 ? '│  ' : '   '}`);
      walk(node.children, inner);
    });
  };

  for (const root of tree.roots) {
    if (root.type !== 'test') {
      walk([root], '');
      continue;
    }
    const a = root.fields;
    const failed = a.testStatus === 'failed' || root.status.code === 2;
    lines.push(
      `${failed ? red('✗') : green('✓')} ${bold(String(a.testName ?? root.name))} ${dim(`(${a.testStatus ?? (failed ? 'failed' : 'passed')})`)}`,
    );
    if (a.testFile) lines.push(`  ${dim(String(a.testFile))}`);
    const omitted = a.omitted === undefined ? '' : describeOmissions(parsed(a.omitted) as Omissions);
    if (omitted) lines.push(`  ${yellow(omitted)}`);
    for (const e of root.events.filter((x) => x.name === 'exception')) {
      const message = stripVTControlCharacters(String(e.fields.exceptionMessage ?? ''));
      const shown = options.full ? message : (message.split('\n').find((l) => l.trim() !== '') ?? '');
      lines.push(`  ${red(`error in ${e.fields.phase ?? 'test'}:`)} ${shown}`);
    }
    const expectation = parsed(a.expectation) as
      | {
          matcher: string;
          mode?: string;
          negated?: boolean;
          expected: Array<{ name: string; args?: unknown }>;
          actual: Array<{ name: string; args?: unknown }>;
          rows: Array<{ expected?: number; received?: number; ok: boolean }>;
          divergence?: number;
          source?: string;
        }
      | undefined;
    if (expectation && typeof expectation === 'object') {
      lines.push(
        `  ${yellow(`${expectation.negated ? 'forbidden' : 'expected'} vs actual (${expectation.matcher}${expectation.negated ? ' .not' : ''}${expectation.mode ? `, mode ${expectation.mode}` : ''})${expectation.source ? `, ${expectation.source}` : ''}:`)}`,
      );
      const cell = (s: { name: string; args?: unknown } | undefined, i: number | undefined) =>
        s ? `${i} ${s.name}${s.args !== undefined ? ` ${short(s.args, 40)}` : ''}` : '';
      const left = expectation.rows.map((r) =>
        cell(r.expected === undefined ? undefined : expectation.expected[r.expected], r.expected),
      );
      const width = Math.max(8, ...left.map((l) => l.length));
      expectation.rows.forEach((r, i) => {
        // Under .not, a step paired with a call is what broke the expectation.
        const violation = expectation.negated && r.ok && r.expected !== undefined && r.received !== undefined;
        const mark = violation
          ? red('✗')
          : i === expectation.divergence
            ? red('>')
            : r.ok
              ? ' '
              : yellow('✗');
        const right = cell(r.received === undefined ? undefined : expectation.actual[r.received], r.received);
        lines.push(`    ${mark} ${left[i].padEnd(width)}   ${right}`);
      });
    }
    walk(root.children, '  ');
  }
  return lines.join('\n');
}
