/**
 * The HTML timeline of a trace: one self-contained page (inline CSS and JS, a CSP that
 * forbids any network access) showing the test's failure, the expected vs actual
 * trajectory when a trajectory matcher failed, then each agent run turn by turn: model
 * calls (request messages collapsed, the response), tool calls with arguments and
 * results, world operations with their outcome and any override, the requests the test's
 * own msw handlers answered, errors highlighted; and each WebSocket session as a conversation,
 * turn by turn, each turn linking to its model and tool call steps.
 * Every step is a <details> element, so the page reads without JavaScript; the script
 * (timeline.js, beside this file, as is timeline.css) adds search, filters and
 * expand/collapse all. Markup is built with `html` (./markup.ts), which escapes every value.
 * Characters beyond ASCII in its templates are written as escapes: the bundles the package runs
 * are pure ASCII (scripts/bundle-ascii.cjs).
 */
import { readFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describeOmissions, type Omissions } from './budget';
import type { ExpectationEvidence as Expectation } from './evidence';
import { type Html, html, join, type Part, raw } from './markup';
import { parsed, type SpanNode, type TraceTree } from './read';
import { assistantLines, closing, toolLine, turnView } from './session-view';

let assets: { css: string; script: string } | undefined;

/** The page's CSS and script, read once (the build copies them beside the compiled module). */
function pageAssets(): { css: string; script: string } {
  if (!assets) {
    const read = (name: string) => readFileSync(joinPath(__dirname, name), 'utf8');
    // Comments and indentation are for the source; each page carries only the rules.
    const css = read('timeline.css')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\n\s*/g, '');
    assets = { css, script: read('timeline.js') };
  }
  return assets;
}

/** The timeline's CSS, for other pages in its look (the live report). */
export const timelineStyles = (): string => pageAssets().css;

const plain = (text: unknown) => stripVTControlCharacters(String(text ?? ''));

function pretty(value: unknown): string {
  const v = parsed(value);
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

function compact(value: unknown, max = 90): string {
  const v = parsed(value);
  let text: string;
  try {
    text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    text = String(v);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const ms = (n: number) =>
  n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ms`;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `part` when `condition` holds, else nothing. */
const when = (condition: unknown, part: () => Part): Part => (condition ? part() : undefined);

function badge(text: string, kind: string): Html {
  return html`<span class="badge ${kind}">${text}</span>`;
}

function block(title: Part, body: Part, open = false): Html {
  return html`<details class="sub "${raw(open ? ' open' : '')}><summary>${title}</summary>${body}</details>`;
}

function pre(value: unknown, cls = ''): Html {
  return html`<pre class="${cls}">${pretty(value)}</pre>`;
}

/** Workspace file changes (`[{ path, change, diff }]`) as diffs, added and removed lines marked. */
function filesHtml(value: unknown): Html {
  const files = parsed(value);
  if (!Array.isArray(files)) return pre(value);
  return join(
    files.map((f: { path?: unknown; change?: unknown; diff?: unknown }) => {
      const lines = String(f?.diff ?? '')
        .replace(/\n$/, '')
        .split('\n')
        .map((line) => {
          const cls = /^(\+\+\+|---) /.test(line)
            ? 'head'
            : line.startsWith('@@')
              ? 'hunk'
              : line.startsWith('+')
                ? 'add'
                : line.startsWith('-')
                  ? 'del'
                  : '';
          return html`<span class="${cls}">${line}</span>`;
        });
      return html`<div class="filediff"><b>${String(f?.path ?? '')}</b> ${badge(String(f?.change ?? 'changed'), 'plain')}<pre class="diff">${join(lines, '\n')}</pre></div>`;
    }),
  );
}

function kv(rows: Array<[string, unknown]>): Html {
  const shown = rows.filter(([, v]) => v !== undefined && v !== null && v !== '');
  if (shown.length === 0) return html``;
  const body = shown.map(
    ([k, v]) => html`<tr><th>${k}</th><td>${typeof v === 'string' ? v : JSON.stringify(v)}</td></tr>`,
  );
  return html`<table class="kv">${body}</table>`;
}

interface Message {
  role: string;
  text: string | null;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
  isError?: boolean;
}

function callHtml(c: { id: string; name: string; arguments: string }): Html {
  return html`<div class="call">\u2192 <b>${c.name}</b>(${compact(c.arguments, 400)}) <span class="dim">${c.id}</span></div>`;
}

function messageHtml(m: Message, i: number): Html {
  const head = html`<span class="role ${m.role}">${m.role}</span>${when(m.toolCallId, () => html` <span class="dim">for ${m.toolCallId}</span>`)}${when(m.isError, () => html` ${badge('error', 'bad')}`)}`;
  const text = when(m.text !== null && m.text !== undefined, () => html`<pre class="text">${m.text}</pre>`);
  return html`<li class="msg"><div class="msg-head"><span class="dim">#${i}</span> ${head}</div>${text}${(m.toolCalls ?? []).map(callHtml)}</li>`;
}

type ModelResponse = {
  content: string | null;
  toolCalls: Message['toolCalls'];
  finishReason?: string;
  reasoning?: string;
};
type ModelError = { message?: string; status?: number; type?: string };

function modelOutcome(unmatched: boolean, error: ModelError | undefined, cut: unknown): Html {
  if (unmatched) return badge('unmatched', 'bad');
  if (error) return badge(`error ${error.status ?? ''}`.trim(), 'bad');
  if (cut !== undefined) return badge(`cut: ${cut}`, 'bad');
  return badge('replied', 'ok');
}

/** One line for the step's summary: what the model asked for, said, or failed with. */
function modelSummary(response: ModelResponse | undefined, error: ModelError | undefined): string {
  if (response?.toolCalls?.length) return `asks for ${response.toolCalls.map((c) => c.name).join(', ')}`;
  if (response?.content) return `“${compact(response.content, 80)}”`;
  if (error) return compact(error.message, 80);
  return '';
}

function responseHtml(response: ModelResponse, heading = 'Response'): Html {
  const finish = when(
    response.finishReason,
    () => html` <span class="dim">(${response.finishReason})</span>`,
  );
  return html`<div class="response"><h4>${heading}${finish}</h4>${when(
    response.reasoning,
    () => html`<pre class="text reasoning">${response.reasoning}</pre>`,
  )}${when(response.content, () => html`<pre class="text">${response.content}</pre>`)}${(response.toolCalls ?? []).map(callHtml)}</div>`;
}

function modelStep(node: SpanNode, runStart: number, runDuration: number, anchor: string): Html {
  const a = node.fields;
  const unmatched = a.unmatched === true;
  const error = parsed(a.modelError) as ModelError | undefined;
  const response = parsed(a.outputMessages) as ModelResponse | undefined;
  const cut = a.cutReason;
  const whole = parsed(a.whole) as ModelResponse | undefined;
  const messages = (parsed(a.inputMessages) ?? []) as Message[];
  const omittedMessages = Number(a.omittedMessages ?? 0);
  const tools = (parsed(a.toolDefinitions) ?? []) as Array<{
    name: string;
    description?: string;
    parameters?: unknown;
  }>;
  const fixture = a.fixtureId;
  const summaryText = modelSummary(response, error);
  const searchable = [
    node.name,
    fixture,
    summaryText,
    response?.content,
    error?.message,
    ...(response?.toolCalls ?? []).map((c) => c.name),
  ]
    .filter(Boolean)
    .join(' ');
  const inputTokens = a.inputTokens;
  const counted = omittedMessages ? ` of ${messages.length + omittedMessages}` : '';
  const body = [
    kv([
      ['provider', a.providerName],
      ['protocol', a.protocol],
      ['model', a.requestModel],
      ['streamed', a.streamed],
      ['fixture', fixture],
      ['fixture file', [a.fixtureFile, a.fixturePath].filter(Boolean).join(' ') || undefined],
      ['turnIndex relaxed', a.turnIndexRelaxed],
      ['fault', a.fault],
      ['tokens', inputTokens === undefined ? undefined : `${inputTokens} in / ${a.outputTokens} out`],
      ['url', a.url],
    ]),
    block(
      'Match keys',
      kv([
        ['userMessage', a.matchUserMessage],
        ['turnIndex', a.matchTurnIndex],
        ['hasToolResult', a.matchHasToolResult],
        ['toolCallId', a.matchToolCallId],
        ['toolNames', a.matchToolNames],
        ['model', a.matchModel],
      ]),
    ),
    block(
      `Request messages (${messages.length}${counted})`,
      html`${when(omittedMessages, () => html`<p class="dim">${omittedMessages} earlier messages are left out of this trace.</p>`)}<ol class="msgs">${messages.map(messageHtml)}</ol>`,
    ),
    when(tools.length > 0, () =>
      block(
        `Tools offered (${tools.length})`,
        tools.map(
          (t) =>
            html`<div class="tooldef"><b>${t.name}</b> <span class="dim">${t.description ?? ''}</span>${when(t.parameters, () => pre(t.parameters))}</div>`,
        ),
      ),
    ),
    when(
      cut,
      () =>
        html`<div class="errbox"><b>Cut short on the wire (${cut})</b>${pre(plain(node.status.message ?? ''))}</div>`,
    ),
    when(response, () => responseHtml(response!, cut === undefined ? 'Response' : 'Received')),
    when(whole, () => responseHtml(whole!, 'Sent whole')),
    when(
      error,
      () =>
        html`<div class="errbox"><b>${unmatched ? 'No fixture matched' : (error!.type ?? 'error')}</b>${pre(plain(error!.message))}</div>`,
    ),
  ];
  return step({
    kind: 'model',
    anchor,
    bad: unmatched || error !== undefined || cut !== undefined,
    override: false,
    label: 'model',
    title: html`${node.name}${when(fixture, () => html` <span class="dim">fixture ${fixture}</span>`)}`,
    summary: html`${summaryText}`,
    outcome: modelOutcome(unmatched, error, cut),
    node,
    runStart,
    runDuration,
    body: join(body),
    searchable,
  });
}

function operationHtml(node: SpanNode, runStart: number, runDuration: number, anchor: string): Html {
  const a = node.fields;
  const override = a.override;
  const outcome = a.outcome;
  const bad = node.status.code === 2;
  const title = [a.operationPackageId, a.operationId].filter(Boolean).join(' / ') || node.name;
  const input = a.operationInput;
  const result = a.operationOutcome;
  const files = a.operationFiles;
  const body = [
    kv([
      ['seq', a.operationSeq],
      ['tool call', a.operationToolCallId],
    ]),
    when(input !== undefined, () => html`<h4>Input</h4>${pre(input)}`),
    when(result !== undefined, () => html`<h4>Outcome</h4>${pre(result, bad ? 'bad' : '')}`),
    when(
      override !== undefined,
      () => html`<div class="overridebox"><h4>Override</h4>${pre(override)}</div>`,
    ),
    when(files !== undefined, () => html`<h4>Files changed</h4>${filesHtml(files)}`),
  ];
  return step({
    kind: 'operation',
    anchor,
    bad,
    override: override !== undefined,
    label: 'operation',
    title: html`${title}`,
    summary: html`${compact(input, 70)}`,
    outcome: html`${when(outcome, () => badge(String(outcome), bad ? 'bad' : 'ok'))}${when(
      override !== undefined,
      () => badge(`override ${a.overrideId ?? ''}`.trim(), 'override'),
    )}`,
    node,
    runStart,
    runDuration,
    body: join(body),
    searchable: [
      title,
      outcome,
      compact(input, 500),
      override === undefined ? '' : `override ${compact(override, 200)}`,
    ].join(' '),
  });
}

/** A request one of the test's own msw handlers answered. */
function httpStep(node: SpanNode, runStart: number, runDuration: number, anchor: string): Html {
  const a = node.fields;
  const bad = node.status.code === 2;
  const outcome = String(a.outcome ?? '');
  const url = String(a.url ?? node.name);
  return step({
    kind: 'http',
    anchor,
    bad,
    override: false,
    label: 'http',
    title: html`<b>${a.httpMethod ?? ''}</b> ${url}`,
    summary: html`<span class="dim">msw handler ${a.httpHandler ?? ''}</span>`,
    outcome: badge(outcome, bad ? 'bad' : 'ok'),
    node,
    runStart,
    runDuration,
    body: kv([
      ['answered by', a.httpHandler],
      ['from', a.httpSource],
      ['status', outcome],
      ['phase', a.phase],
    ]),
    searchable: [a.httpMethod, url, outcome, a.httpHandler].join(' '),
  });
}

function toolOutcome(outcome: string, held: Held): Html {
  const kind =
    outcome === 'error' || outcome === 'incomplete' ? 'bad' : outcome === 'unanswered' ? 'warn' : 'ok';
  return html`${badge(outcome || 'ok', kind)}${held.failed.map((f) => badge(f, 'bad'))}${held.overrides.map((o) => badge(o, 'override'))}`;
}

/** What a tool call's operations hold that its own outcome does not show: failures and overrides. */
interface Held {
  /** `events.create → error BUSY`, one per failed operation. */
  failed: string[];
  /** `override busy-once`, one per overridden operation. */
  overrides: string[];
}

function heldBy(node: SpanNode): Held {
  const ops = node.children.filter((c) => c.type === 'operation');
  const idOf = (op: SpanNode) => String(op.fields.operationId ?? op.name.replace(/^world\.operation /, ''));
  const codeOf = (op: SpanNode) => {
    const outcome = parsed(op.fields.operationOutcome) as { error?: { code?: unknown } } | undefined;
    return typeof outcome?.error?.code === 'string' ? ` ${outcome.error.code}` : '';
  };
  return {
    failed: ops.filter((op) => op.status.code === 2).map((op) => `${idOf(op)} → error${codeOf(op)}`),
    overrides: ops
      .filter((op) => op.fields.override !== undefined)
      .map((op) => `override ${op.fields.overrideId ?? ''}`.trim()),
  };
}

function toolStep(
  node: SpanNode,
  runStart: number,
  runDuration: number,
  anchor: string,
  operations: Html[],
): Html {
  const a = node.fields;
  const outcome = String(a.outcome ?? '');
  const bad = outcome === 'error' || outcome === 'incomplete';
  const args = a.toolCallArguments;
  const result = a.toolCallResult;
  const held = heldBy(node);
  const body = [
    kv([
      ['call id', a.toolCallId],
      ['asked by model call', a.toolRequestedBy],
    ]),
    html`<h4>Arguments${when(outcome === 'incomplete', () => html` <span class="dim">(cut short: what arrived)</span>`)}</h4>${pre(args)}`,
    result !== undefined
      ? html`<h4>${bad ? 'Error' : 'Result'}</h4>${pre(result, bad ? 'bad' : '')}`
      : html`<p class="dim">No result reached the model.</p>`,
    when(operations.length > 0, () => html`<h4>Operations</h4><ol class="ops">${operations}</ol>`),
  ];
  return step({
    kind: 'tool',
    anchor,
    bad,
    override: held.overrides.length > 0,
    holdsFailure: held.failed.length > 0,
    label: 'tool',
    title: html`<b>${a.toolName ?? node.name}</b>`,
    summary: html`${compact(args, 60)}${when(result !== undefined, () => html` <span class="arrow">\u2192</span> ${compact(result, 60)}`)}`,
    outcome: toolOutcome(outcome, held),
    node,
    runStart,
    runDuration,
    body: join(body),
    searchable: [
      a.toolName,
      compact(args, 500),
      compact(result, 500),
      outcome,
      ...held.failed,
      ...held.overrides,
    ].join(' '),
  });
}

interface StepParts {
  kind: 'model' | 'tool' | 'operation' | 'http';
  anchor: string;
  bad: boolean;
  override: boolean;
  /** A step that went fine itself but holds one that failed (a tool call over a failed operation). */
  holdsFailure?: boolean;
  label: string;
  title: Html;
  summary: Html;
  outcome: Html;
  node: SpanNode;
  runStart: number;
  runDuration: number;
  body: Html;
  searchable: string;
}

function step(p: StepParts): Html {
  const span = Math.max(p.runDuration, 0.001);
  const left = Math.min(100, Math.max(0, ((p.node.start - p.runStart) / span) * 100));
  const width = Math.max(0.6, Math.min(100 - left, (p.node.duration / span) * 100));
  const classes = [
    'step',
    p.kind,
    p.bad ? 'bad' : '',
    p.override ? 'overridden' : '',
    p.holdsFailure ? 'holds-bad' : '',
  ]
    .filter(Boolean)
    .join(' ');
  // What went wrong, or was made to, is open from the start (also without the script).
  const open = p.bad || p.override || p.holdsFailure;
  const timing = `${ms(p.node.start - p.runStart)} + ${ms(p.node.duration)}`;
  const bar = `left:${left.toFixed(2)}%;width:${width.toFixed(2)}%`;
  return html`<li class="${classes}" id="${p.anchor}" data-kind="${p.kind}" data-search="${p.searchable.toLowerCase()}"><details${raw(open ? ' open' : '')}><summary><span class="label">${p.label}</span><span class="title">${p.title}</span><span class="summary">${p.summary}</span><span class="outcome">${p.outcome}</span><span class="bar" title="${timing}"><i style="${bar}"></i></span><span class="dur">${ms(p.node.duration)}</span></summary><div class="body">${p.body}</div></details></li>`;
}

/** The anchor of each model and tool call step on the page, by its span id (a session's turns link to them). */
type Anchors = Map<string, string>;

/** A run's steps in time order; each model call opens a turn, the tool calls it asked for follow it. */
function runSteps(run: SpanNode, r: number, anchors: Anchors): { items: Html[]; turns: number } {
  let turns = 0;
  let stepIndex = 0;
  const items: Html[] = [];
  for (const child of run.children) {
    if (child.type === 'model') {
      turns++;
      items.push(html`<li class="turn" data-turn="${turns}">Turn ${turns}</li>`);
      const anchor = `r${r}-s${stepIndex++}`;
      anchors.set(child.id, anchor);
      items.push(modelStep(child, run.start, run.duration, anchor));
    } else if (child.type === 'tool') {
      const ops = child.children
        .filter((c) => c.type === 'operation')
        .map((c) => operationHtml(c, run.start, run.duration, `r${r}-s${stepIndex++}`));
      const id = String(child.fields.toolCallId ?? stepIndex);
      anchors.set(child.id, `r${r}-tool-${id}`);
      items.push(toolStep(child, run.start, run.duration, `r${r}-tool-${id}`, ops));
      stepIndex++;
    } else if (child.type === 'operation') {
      items.push(operationHtml(child, run.start, run.duration, `r${r}-s${stepIndex++}`));
    } else if (child.type === 'http') {
      items.push(httpStep(child, run.start, run.duration, `r${r}-s${stepIndex++}`));
    }
  }
  return { items, turns };
}

function runSection(run: SpanNode, r: number, anchors: Anchors): Html {
  const a = run.fields;
  const state = String(a.terminalState ?? '');
  const failed = run.status.code === 2;
  const { items, turns } = runSteps(run, r, anchors);
  const exception = run.events.find((e) => e.name === 'exception');
  const drillBuild = a.drillBuild;
  const drill = when(drillBuild !== undefined || a.drillSeed !== undefined, () =>
    block(
      `Drill ${a.drillName ?? ''}: build and seed`,
      html`${kv([
        ['seed', a.drillSeed],
        ['verdict', a.drillVerdict],
      ])}${when(drillBuild !== undefined, () => pre(drillBuild))}`,
    ),
  );
  const input = a.runInput;
  const output = a.runOutput;
  const runFiles = a.runFiles;
  const fileCount = Array.isArray(parsed(runFiles)) ? (parsed(runFiles) as unknown[]).length : 0;
  const index = a.runIndex ?? r;
  const finalMessage = a.finalMessage;
  const counts = [
    ms(run.duration),
    plural(turns, 'turn'),
    plural(Number(a.toolCalls ?? 0), 'tool call'),
    plural(Number(a.operations ?? 0), 'operation'),
    ...(a.httpRequests ? [plural(Number(a.httpRequests), 'HTTP request')] : []),
  ].join(' · ');
  return html`<section class="run${failed ? ' bad' : ''}" id="run-${index}">
<h2><span>Run ${index}</span> ${badge(String(a.runKind ?? 'run'), 'plain')} ${badge(String(a.phase ?? 'test'), 'plain')} ${badge(state || 'unknown', failed ? 'bad' : 'ok')} <span class="dim">${counts}</span></h2>
${when(finalMessage !== undefined, () => html`<p class="final"><span class="dim">final message</span> ${finalMessage}</p>`)}
${when(exception, () => html`<div class="errbox"><b>${exception!.fields.exceptionType ?? 'Error'}</b>${pre(plain(exception!.fields.exceptionMessage))}</div>`)}
${when(input !== undefined, () => block('Input', pre(input)))}${when(output !== undefined, () => block('Output', pre(output)))}${drill}
${when(fileCount > 0, () => block(`Files the run changed (${fileCount})`, filesHtml(runFiles), true))}
<ol class="steps">${join(items, '\n')}</ol>
</section>`;
}

function stepText(s: { name: string; args?: unknown } | undefined): string {
  if (!s) return '';
  return s.args === undefined ? s.name : `${s.name} ${compact(s.args, 70)}`;
}

function expectationSection(e: Expectation): Html {
  const names = new Set(e.expected.map((x) => x.name));
  // A `.not` expectation fails because its steps did occur: the rows pairing a step with a
  // call are the violation, not a match to tick off.
  const violating = (row: Expectation['rows'][number]) =>
    e.negated && row.ok && row.expected !== undefined && row.received !== undefined;
  const rowHtml = (row: Expectation['rows'][number], i: number) => {
    const exp = row.expected === undefined ? undefined : e.expected[row.expected];
    const act = row.received === undefined ? undefined : e.actual[row.received];
    const violation = violating(row);
    const marked = i === e.divergence || (!row.ok && e.divergence === undefined);
    const gutter = violation ? '✗' : marked ? '▶' : row.ok ? '✓' : '✗';
    const cls = violation ? 'violation' : `${row.ok ? 'ok' : 'miss'}${marked ? ' diverge' : ''}`;
    return html`<tr class="${cls}"><td class="gut">${gutter}</td><td>${row.expected ?? ''}</td><td>${stepText(exp)}</td><td>${row.received ?? ''}</td><td>${stepText(act)}</td></tr>`;
  };
  const violations = e.rows.filter(violating);
  // Calls the expectation does not mention, in a row, fold into one line: a long run stays readable.
  const quiet = (row: Expectation['rows'][number], i: number) =>
    row.ok &&
    row.expected === undefined &&
    i !== e.divergence &&
    (row.received === undefined || !names.has(e.actual[row.received]?.name));
  const rows: Html[] = [];
  for (let i = 0; i < e.rows.length; ) {
    let j = i;
    while (j < e.rows.length && quiet(e.rows[j], j)) j++;
    if (j - i >= 3) {
      const calls = e.rows
        .slice(i, j)
        .map((r) => (r.received === undefined ? '' : e.actual[r.received]?.name));
      rows.push(
        html`<tr class="fold"><td class="gut">\u22ef</td><td></td><td></td><td>${e.rows[i].received ?? ''}\u2013${e.rows[j - 1].received ?? ''}</td><td class="dim">${j - i} other calls: ${calls.join(', ')}</td></tr>`,
      );
      i = j;
    } else {
      const end = Math.max(j, i + 1);
      for (; i < end; i++) rows.push(rowHtml(e.rows[i], i));
    }
  }
  const about = html`${e.matcher}${when(e.negated, () => ' (.not)')}${when(e.mode, () => ` \u00b7 mode ${e.mode}`)}${when(e.args, () => ` \u00b7 args ${e.args}`)}${when(e.runIndex !== undefined, () => html` \u00b7 <a href="#run-${e.runIndex}">run ${e.runIndex}</a>`)}`;
  const forbidden = when(
    violations.length > 0,
    () =>
      html`<p class="violation-note">${badge('forbidden', 'bad')} ${when(e.source, () => html`<b>${e.source}</b>: `)}the run made ${violations.map((r) => e.actual[r.received!]?.name ?? '').join(' → ')} in this order (received ${violations.length === 1 ? 'step' : 'steps'} ${violations.map((r) => r.received).join(', ')}).</p>`,
  );
  return html`<section class="expectation" id="expectation">
<h2>${e.negated ? 'Forbidden vs actual trajectory' : 'Expected vs actual trajectory'} <span class="dim">${about}</span></h2>
${when(e.source && violations.length === 0, () => html`<p><b>${e.source}</b></p>`)}${forbidden}
<table class="traj"><thead><tr><th></th><th>#</th><th>${e.negated ? 'Forbidden' : 'Expected'}</th><th>#</th><th>Actual</th></tr></thead><tbody>${rows}</tbody></table>
${block('Matcher message', pre(plain(e.message)))}
</section>`;
}

function countDeep(nodes: SpanNode[], type: string): number {
  let n = 0;
  for (const node of nodes) n += (node.type === type ? 1 : 0) + countDeep(node.children, type);
  return n;
}

/** A session's turn as a conversation: the user, the assistant (cut where it was), its tool calls, links to its steps. */
function turnHtml(node: SpanNode, session: number, anchors: Anchors): Html {
  const t = turnView(node.fields);
  const bad = node.status.code === 2;
  const linked = node.links.map(({ spanId, fields }) => {
    const tool = t.toolCalls.find((c) => c.id === fields.toolCallId);
    const text =
      fields.modelCallIndex !== undefined
        ? `model call ${fields.modelCallIndex}`
        : `tool ${tool?.name ?? fields.toolCallId ?? ''}`;
    const anchor = anchors.get(spanId);
    return anchor ? html`<a href="#${anchor}">${text}</a>` : html`<span>${text}</span>`;
  });
  const badgeKind = bad
    ? 'bad'
    : t.outcome === 'interrupted'
      ? 'warn'
      : t.outcome === 'unanswered'
        ? 'plain'
        : 'ok';
  return html`<li class="sturn${bad ? ' bad' : ''}" id="session-${session}-turn-${t.index}" data-turn="${t.index}"><div class="sturn-head"><b>Turn ${t.index}</b> ${badge(t.outcome || 'turn', badgeKind)} <span class="dim">${ms(node.duration)}</span></div>
<p class="said user">${t.user ?? html`<span class="dim">no new input from the user</span>`}</p>
${assistantLines(t).map((line) =>
  'call' in line
    ? html`<p class="said tool">${toolLine(line.call, (v) => compact(v, 200))}</p>`
    : html`<p class="said assistant${line.cut ? ' cut' : ''}">${line.said}</p>`,
)}${t.faults.map((f) => html`<p class="said fault">${f}</p>`)}
${when(linked.length > 0, () => html`<p class="links dim">steps: ${join(linked, ' · ')}</p>`)}</li>`;
}

/** A WebSocket session: the socket, how it closed and who closed it, then its turns in order. */
function sessionSection(session: SpanNode, anchors: Anchors): Html {
  const a = session.fields;
  const turns = session.children.filter((c) => c.type === 'turn');
  const bad = session.status.code === 2;
  const how = closing(a);
  const omitted = a.sessionOmittedTurns;
  return html`<section class="run session${bad ? ' bad' : ''}" id="session-${a.sessionIndex ?? 0}">
<h2><span>Session ${a.sessionIndex ?? 0}</span> ${badge(String(a.protocol ?? 'socket'), 'plain')} ${badge(how, a.sessionDropped ? 'bad' : 'ok')} <span class="dim">${ms(session.duration)} \u00b7 ${plural(Number(a.sessionTurns ?? turns.length), 'turn')}</span></h2>
<p class="dim">${String(a.url ?? '')}</p>
${when(omitted, () => html`<p class="omitted">${omitted} turns between the first and the latest are left out of this trace.</p>`)}
<ol class="sturns">${join(
    turns.map((t) => turnHtml(t, Number(a.sessionIndex ?? 0), anchors)),
    '\n',
  )}</ol>
</section>`;
}

/** Model calls and HTTP requests made outside any run (in a hook, at file level), as a section of their own. */
function looseSection(loose: SpanNode[], anchors: Anchors): Part {
  if (loose.length === 0) return undefined;
  const start = loose[0].start;
  const duration = Math.max(...loose.map((l) => l.start + l.duration)) - start;
  const title = loose.every((n) => n.type === 'http')
    ? 'HTTP requests outside any run'
    : loose.some((n) => n.type === 'http')
      ? 'Model calls and HTTP requests outside any run'
      : 'Model calls outside any run';
  const steps = loose.map((n, i) => {
    anchors.set(n.id, `loose-${i}`);
    return n.type === 'http'
      ? httpStep(n, start, duration, `loose-${i}`)
      : modelStep(n, start, duration, `loose-${i}`);
  });
  return html`<section class="run" id="loose"><h2>${title}</h2><ol class="steps">${steps}</ol></section>`;
}

function errorSection(errors: SpanNode['events'], expectation: Expectation | undefined): Part {
  if (errors.length === 0) return undefined;
  const items = errors.map((e) => {
    const message = plain(e.fields.exceptionMessage);
    const headline = message.split('\n').find((l) => l.trim() !== '') ?? '';
    // With the trajectory table above, the matcher's full message is one click away.
    return html`<details class="errbox"${raw(expectation ? '' : ' open')}><summary>${badge(String(e.fields.phase ?? 'test'), 'plain')} <b>${e.fields.exceptionType ?? 'Error'}</b> ${headline}</summary>${pre(message)}</details>`;
  });
  return html`<section class="failure"><h2>Why the test failed</h2>${items}</section>`;
}

/** The page for one trace. */
export function renderTimeline(tree: TraceTree): string {
  const test = tree.roots.find((r) => r.type === 'test');
  const title = String(
    test?.fields.testName ?? tree.resourceFields.testName ?? tree.roots[0]?.name ?? 'trace',
  );
  const file = String(test?.fields.testFile ?? tree.resourceFields.testFile ?? '');
  const status = String(
    test?.fields.testStatus ?? (tree.roots.some((r) => r.status.code === 2) ? 'failed' : 'passed'),
  );
  const top = test ? test.children : tree.roots;
  const runs = top.filter((n) => n.type === 'run');
  const sessions = top.filter((n) => n.type === 'session');
  const anchors: Anchors = new Map();
  const runSections = runs.map((run, r) => runSection(run, r, anchors));
  const loose = top.filter((n) => n.type === 'model' || n.type === 'http');
  const looseHtml = looseSection(loose, anchors);
  const expectationAttr = test?.fields.expectation;
  const expectation = expectationAttr === undefined ? undefined : (parsed(expectationAttr) as Expectation);
  const errors = (test?.events ?? []).filter((e) => e.name === 'exception');
  const omittedAttr = test?.fields.omitted;
  const omitted = omittedAttr === undefined ? '' : describeOmissions(parsed(omittedAttr) as Omissions);
  const all = tree.roots;
  const counts = [
    plural(countDeep(all, 'run'), 'run'),
    plural(countDeep(all, 'model'), 'model call'),
    plural(countDeep(all, 'tool'), 'tool call'),
    plural(countDeep(all, 'operation'), 'operation'),
    ...(countDeep(all, 'http') > 0 ? [plural(countDeep(all, 'http'), 'HTTP request')] : []),
    ...(sessions.length > 0 ? [plural(sessions.length, 'socket session')] : []),
  ].join(' · ');
  const { css, script } = pageAssets();
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${status === 'failed' ? '✗ ' : '✓ '}${title}</title>
<style>${raw(css)}</style>
</head>
<body>
<header>
<div class="headline">${badge(status, status === 'failed' ? 'bad' : 'ok')}<h1>${title}</h1></div>
<div class="meta"><span>${file}</span><span>${counts}</span><span class="dim">trace ${tree.traceId}</span></div>
<div class="controls">
<input id="q" type="search" placeholder="Search steps (press /)" autocomplete="off" aria-label="Search steps">
<label><input type="checkbox" data-kind="model" checked> model calls</label>
<label><input type="checkbox" data-kind="tool" checked> tool calls</label>
<label><input type="checkbox" data-kind="operation" checked> operations</label>
<label><input type="checkbox" data-kind="http" checked> HTTP requests</label>
<label><input type="checkbox" id="only-bad"> only errors &amp; overrides</label>
<button type="button" id="expand">Expand all</button><button type="button" id="collapse">Collapse all</button>
<span id="shown" class="dim"></span>
</div>
</header>
<main>
${when(omitted, () => html`<p class="omitted">${omitted}</p>`)}
${when(expectation, () => expectationSection(expectation!))}
${errorSection(errors, expectation)}
${join(
  sessions.map((s) => sessionSection(s, anchors)),
  '\n',
)}
${join(runSections, '\n')}
${looseHtml}
${when(runs.length === 0 && loose.length === 0 && sessions.length === 0, () => html`<p class="dim empty">This test made no model calls and ran no agent.</p>`)}
</main>
<script>${raw(script)}</script>
</body>
</html>
`;
  return page.text;
}
