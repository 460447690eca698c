/**
 * The HTML timeline of a trace: one self-contained page (inline CSS and JS, a CSP that
 * forbids any network access) showing the test's failure, the expected vs actual
 * trajectory when a trajectory matcher failed, then each agent run turn by turn: model
 * calls (request messages collapsed, the response), tool calls with arguments and
 * results, world operations with their outcome and any override, errors highlighted.
 * Every step is a <details> element, so the page reads without JavaScript; the script
 * adds search, filters and expand/collapse all.
 */
import { stripVTControlCharacters } from 'node:util';
import { describeOmissions, type Omissions } from './budget';
import type { ExpectationEvidence as Expectation } from './evidence';
import { parsed, type SpanNode, type TraceTree } from './read';

const esc = (value: unknown): string =>
  String(value).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

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

const attr = (node: SpanNode, key: string) => node.attributes[key];

function badge(text: string, kind: string): string {
  return `<span class="badge ${esc(kind)}">${esc(text)}</span>`;
}

function block(title: string, body: string, open = false, cls = ''): string {
  return `<details class="sub ${cls}"${open ? ' open' : ''}><summary>${title}</summary>${body}</details>`;
}

function pre(value: unknown, cls = ''): string {
  return `<pre class="${cls}">${esc(pretty(value))}</pre>`;
}

function kv(rows: Array<[string, unknown]>): string {
  const body = rows
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(
      ([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(typeof v === 'string' ? v : JSON.stringify(v))}</td></tr>`,
    )
    .join('');
  return body ? `<table class="kv">${body}</table>` : '';
}

interface Message {
  role: string;
  text: string | null;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
  isError?: boolean;
}

function messageHtml(m: Message, i: number): string {
  const calls = (m.toolCalls ?? [])
    .map(
      (c) =>
        `<div class="call">→ <b>${esc(c.name)}</b>(${esc(compact(c.arguments, 400))}) <span class="dim">${esc(c.id)}</span></div>`,
    )
    .join('');
  const head = `<span class="role ${esc(m.role)}">${esc(m.role)}</span>${m.toolCallId ? ` <span class="dim">for ${esc(m.toolCallId)}</span>` : ''}${m.isError ? ' ' + badge('error', 'bad') : ''}`;
  return `<li class="msg"><div class="msg-head"><span class="dim">#${i}</span> ${head}</div>${m.text !== null && m.text !== undefined ? `<pre class="text">${esc(m.text)}</pre>` : ''}${calls}</li>`;
}

function modelStep(node: SpanNode, runStart: number, runDuration: number, anchor: string): string {
  const a = (k: string) => attr(node, k);
  const unmatched = a('understudy.unmatched') === true;
  const error = parsed(a('understudy.error')) as
    | { message?: string; status?: number; type?: string }
    | undefined;
  const response = parsed(a('gen_ai.output.messages')) as
    | { content: string | null; toolCalls: Message['toolCalls']; finishReason?: string; reasoning?: string }
    | undefined;
  const messages = (parsed(a('gen_ai.input.messages')) ?? []) as Message[];
  const omittedMessages = Number(a('understudy.omitted_messages') ?? 0);
  const tools = (parsed(a('gen_ai.tool.definitions')) ?? []) as Array<{
    name: string;
    description?: string;
    parameters?: unknown;
  }>;
  const fixture = a('understudy.fixture.id');
  const outcome = unmatched
    ? badge('unmatched', 'bad')
    : error
      ? badge(`error ${error.status ?? ''}`.trim(), 'bad')
      : badge('replied', 'ok');
  const summaryText = response?.toolCalls?.length
    ? `asks for ${response.toolCalls.map((c) => c.name).join(', ')}`
    : response?.content
      ? `“${compact(response.content, 80)}”`
      : error
        ? compact(error.message, 80)
        : '';
  const bad = unmatched || error !== undefined;
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
  const body = [
    kv([
      ['provider', a('gen_ai.provider.name')],
      ['protocol', a('understudy.protocol')],
      ['model', a('gen_ai.request.model')],
      ['streamed', a('understudy.streamed')],
      ['fixture', fixture],
      [
        'fixture file',
        [a('understudy.fixture.file'), a('understudy.fixture.path')].filter(Boolean).join(' ') || undefined,
      ],
      ['turnIndex relaxed', a('understudy.turn_index_relaxed')],
      ['fault', a('understudy.fault')],
      [
        'tokens',
        a('gen_ai.usage.input_tokens') === undefined
          ? undefined
          : `${a('gen_ai.usage.input_tokens')} in / ${a('gen_ai.usage.output_tokens')} out`,
      ],
      ['url', a('url.full')],
    ]),
    block(
      'Match keys',
      kv([
        ['userMessage', a('understudy.match.user_message')],
        ['turnIndex', a('understudy.match.turn_index')],
        ['hasToolResult', a('understudy.match.has_tool_result')],
        ['toolCallId', a('understudy.match.tool_call_id')],
        ['toolNames', a('understudy.match.tool_names')],
        ['model', a('understudy.match.model')],
      ]),
    ),
    block(
      `Request messages (${messages.length}${omittedMessages ? ` of ${messages.length + omittedMessages}` : ''})`,
      `${omittedMessages ? `<p class="dim">${omittedMessages} earlier messages are left out of this trace.</p>` : ''}<ol class="msgs">${messages.map(messageHtml).join('')}</ol>`,
    ),
    tools.length > 0
      ? block(
          `Tools offered (${tools.length})`,
          tools
            .map(
              (t) =>
                `<div class="tooldef"><b>${esc(t.name)}</b> <span class="dim">${esc(t.description ?? '')}</span>${t.parameters ? pre(t.parameters) : ''}</div>`,
            )
            .join(''),
        )
      : '',
    response
      ? `<div class="response"><h4>Response${response.finishReason ? ` <span class="dim">(${esc(response.finishReason)})</span>` : ''}</h4>${
          response.reasoning ? `<pre class="text reasoning">${esc(response.reasoning)}</pre>` : ''
        }${response.content ? `<pre class="text">${esc(response.content)}</pre>` : ''}${(
          response.toolCalls ?? []
        )
          .map(
            (c) =>
              `<div class="call">→ <b>${esc(c.name)}</b>(${esc(compact(c.arguments, 400))}) <span class="dim">${esc(c.id)}</span></div>`,
          )
          .join('')}</div>`
      : '',
    error
      ? `<div class="errbox"><b>${unmatched ? 'No fixture matched' : esc(error.type ?? 'error')}</b>${pre(plain(error.message))}</div>`
      : '',
  ].join('');
  return step({
    kind: 'model',
    anchor,
    bad,
    override: false,
    label: 'model',
    title: `${esc(node.name)}${fixture ? ` <span class="dim">fixture ${esc(fixture)}</span>` : ''}`,
    summary: esc(summaryText),
    outcome,
    node,
    runStart,
    runDuration,
    body,
    searchable,
  });
}

function operationHtml(node: SpanNode, runStart: number, runDuration: number, anchor: string): string {
  const a = (k: string) => attr(node, k);
  const override = a('understudy.override');
  const outcome = a('understudy.outcome');
  const bad = node.status.code === 2;
  const title = `${esc([a('understudy.operation.package_id'), a('understudy.operation.operation_id')].filter(Boolean).join(' / ') || node.name)}`;
  const body = [
    kv([
      ['seq', a('understudy.operation.seq')],
      ['tool call', a('understudy.operation.tool_call_id')],
    ]),
    a('understudy.operation.input') !== undefined
      ? `<h4>Input</h4>${pre(a('understudy.operation.input'))}`
      : '',
    a('understudy.operation.outcome') !== undefined
      ? `<h4>Outcome</h4>${pre(a('understudy.operation.outcome'), bad ? 'bad' : '')}`
      : '',
    override !== undefined ? `<div class="overridebox"><h4>Override</h4>${pre(override)}</div>` : '',
  ].join('');
  return step({
    kind: 'operation',
    anchor,
    bad,
    override: override !== undefined,
    label: 'operation',
    title,
    summary: esc(compact(a('understudy.operation.input'), 70)),
    outcome: `${outcome ? badge(String(outcome), bad ? 'bad' : 'ok') : ''}${override !== undefined ? badge(`override ${a('understudy.override.id') ?? ''}`.trim(), 'override') : ''}`,
    node,
    runStart,
    runDuration,
    body,
    searchable: [
      title,
      outcome,
      compact(a('understudy.operation.input'), 500),
      override === undefined ? '' : `override ${compact(override, 200)}`,
    ].join(' '),
  });
}

function toolStep(
  node: SpanNode,
  runStart: number,
  runDuration: number,
  anchor: string,
  operations: string,
): string {
  const a = (k: string) => attr(node, k);
  const outcome = String(a('understudy.outcome') ?? '');
  const bad = outcome === 'error';
  const args = a('gen_ai.tool.call.arguments');
  const result = a('gen_ai.tool.call.result');
  const hasOverride = node.children.some((c) => c.attributes['understudy.override'] !== undefined);
  const body = [
    kv([
      ['call id', a('gen_ai.tool.call.id')],
      ['asked by model call', a('understudy.tool.requested_by')],
    ]),
    `<h4>Arguments</h4>${pre(args)}`,
    result !== undefined
      ? `<h4>${bad ? 'Error' : 'Result'}</h4>${pre(result, bad ? 'bad' : '')}`
      : `<p class="dim">No result reached the model.</p>`,
    operations ? `<h4>Operations</h4><ol class="ops">${operations}</ol>` : '',
  ].join('');
  return step({
    kind: 'tool',
    anchor,
    bad,
    override: hasOverride,
    label: 'tool',
    title: `<b>${esc(a('gen_ai.tool.name') ?? node.name)}</b>`,
    summary: `${esc(compact(args, 60))}${result !== undefined ? ` <span class="arrow">→</span> ${esc(compact(result, 60))}` : ''}`,
    outcome: `${badge(outcome || 'ok', bad ? 'bad' : outcome === 'unanswered' ? 'warn' : 'ok')}${hasOverride ? badge('override', 'override') : ''}`,
    node,
    runStart,
    runDuration,
    body,
    searchable: [a('gen_ai.tool.name'), compact(args, 500), compact(result, 500), outcome].join(' '),
  });
}

interface StepParts {
  kind: 'model' | 'tool' | 'operation';
  anchor: string;
  bad: boolean;
  override: boolean;
  label: string;
  title: string;
  summary: string;
  outcome: string;
  node: SpanNode;
  runStart: number;
  runDuration: number;
  body: string;
  searchable: string;
}

function step(p: StepParts): string {
  const span = Math.max(p.runDuration, 0.001);
  const left = Math.min(100, Math.max(0, ((p.node.start - p.runStart) / span) * 100));
  const width = Math.max(0.6, Math.min(100 - left, (p.node.duration / span) * 100));
  const classes = ['step', p.kind, p.bad ? 'bad' : '', p.override ? 'overridden' : '']
    .filter(Boolean)
    .join(' ');
  return `<li class="${classes}" id="${esc(p.anchor)}" data-kind="${p.kind}" data-search="${esc(p.searchable.toLowerCase())}"><details><summary><span class="label">${esc(p.label)}</span><span class="title">${p.title}</span><span class="summary">${p.summary}</span><span class="outcome">${p.outcome}</span><span class="bar" title="${esc(ms(p.node.start - p.runStart))} + ${esc(ms(p.node.duration))}"><i style="left:${left.toFixed(2)}%;width:${width.toFixed(2)}%"></i></span><span class="dur">${esc(ms(p.node.duration))}</span></summary><div class="body">${p.body}</div></details></li>`;
}

function runSection(run: SpanNode, r: number): string {
  const a = (k: string) => attr(run, k);
  const runStart = run.start;
  const runDuration = run.duration;
  const state = String(a('understudy.terminal_state') ?? '');
  const failed = run.status.code === 2;
  let turn = 0;
  let stepIndex = 0;
  const items: string[] = [];
  // Steps in time order; each model call opens a turn, the tool calls it asked for follow it.
  for (const child of run.children) {
    if (child.type === 'model') {
      turn++;
      items.push(`<li class="turn" data-turn="${turn}">Turn ${turn}</li>`);
      items.push(modelStep(child, runStart, runDuration, `r${r}-s${stepIndex++}`));
    } else if (child.type === 'tool') {
      const ops = child.children
        .filter((c) => c.type === 'operation')
        .map((c) => operationHtml(c, runStart, runDuration, `r${r}-s${stepIndex++}`))
        .join('');
      items.push(
        toolStep(
          child,
          runStart,
          runDuration,
          `r${r}-tool-${esc(String(child.attributes['gen_ai.tool.call.id'] ?? stepIndex))}`,
          ops,
        ),
      );
      stepIndex++;
    } else if (child.type === 'operation') {
      items.push(operationHtml(child, runStart, runDuration, `r${r}-s${stepIndex++}`));
    }
  }
  const exception = run.events.find((e) => e.name === 'exception');
  const drillBuild = a('understudy.drill.build');
  const drill =
    drillBuild !== undefined || a('understudy.drill.seed') !== undefined
      ? block(
          `Drill ${esc(a('understudy.drill.name') ?? '')}: build and seed`,
          `${kv([
            ['seed', a('understudy.drill.seed')],
            ['verdict', a('understudy.drill.verdict')],
          ])}${drillBuild !== undefined ? pre(drillBuild) : ''}`,
        )
      : '';
  const io = [
    a('understudy.run.input') !== undefined ? block('Input', pre(a('understudy.run.input'))) : '',
    a('understudy.run.output') !== undefined ? block('Output', pre(a('understudy.run.output'))) : '',
  ].join('');
  return `<section class="run${failed ? ' bad' : ''}" id="run-${esc(a('understudy.run.index') ?? r)}">
<h2><span>Run ${esc(a('understudy.run.index') ?? r)}</span> ${badge(String(a('understudy.run.kind') ?? 'run'), 'plain')} ${badge(String(a('understudy.phase') ?? 'test'), 'plain')} ${badge(state || 'unknown', failed ? 'bad' : 'ok')} <span class="dim">${esc(ms(runDuration))} · ${plural(turn, 'turn')} · ${plural(Number(a('understudy.tool_calls') ?? 0), 'tool call')} · ${plural(Number(a('understudy.operations') ?? 0), 'operation')}</span></h2>
${a('understudy.final_message') !== undefined ? `<p class="final"><span class="dim">final message</span> ${esc(a('understudy.final_message'))}</p>` : ''}
${exception ? `<div class="errbox"><b>${esc(exception.attributes['exception.type'] ?? 'Error')}</b>${pre(plain(exception.attributes['exception.message']))}</div>` : ''}
${io}${drill}
<ol class="steps">${items.join('\n')}</ol>
</section>`;
}

function stepText(s: { name: string; args?: unknown } | undefined): string {
  if (!s) return '';
  return s.args === undefined ? s.name : `${s.name} ${compact(s.args, 70)}`;
}

function expectationSection(e: Expectation): string {
  const names = new Set(e.expected.map((x) => x.name));
  const rowHtml = (row: Expectation['rows'][number], i: number) => {
    const exp = row.expected === undefined ? undefined : e.expected[row.expected];
    const act = row.received === undefined ? undefined : e.actual[row.received];
    const marked = i === e.divergence || (!row.ok && e.divergence === undefined);
    return `<tr class="${row.ok ? 'ok' : 'miss'}${marked ? ' diverge' : ''}"><td class="gut">${marked ? '▶' : row.ok ? '✓' : '✗'}</td><td>${row.expected ?? ''}</td><td>${esc(stepText(exp))}</td><td>${row.received ?? ''}</td><td>${esc(stepText(act))}</td></tr>`;
  };
  // Calls the expectation does not mention, in a row, fold into one line: a long run stays readable.
  const quiet = (row: Expectation['rows'][number], i: number) =>
    row.ok &&
    row.expected === undefined &&
    i !== e.divergence &&
    (row.received === undefined || !names.has(e.actual[row.received]?.name));
  const parts: string[] = [];
  for (let i = 0; i < e.rows.length; ) {
    let j = i;
    while (j < e.rows.length && quiet(e.rows[j], j)) j++;
    if (j - i >= 3) {
      const calls = e.rows
        .slice(i, j)
        .map((r) => (r.received === undefined ? '' : e.actual[r.received]?.name));
      parts.push(
        `<tr class="fold"><td class="gut">⋯</td><td></td><td></td><td>${e.rows[i].received ?? ''}–${e.rows[j - 1].received ?? ''}</td><td class="dim">${j - i} other calls: ${esc(calls.join(', '))}</td></tr>`,
      );
      i = j;
    } else {
      const end = Math.max(j, i + 1);
      for (; i < end; i++) parts.push(rowHtml(e.rows[i], i));
    }
  }
  const rows = parts.join('');
  return `<section class="expectation" id="expectation">
<h2>Expected vs actual trajectory <span class="dim">${esc(e.matcher)}${e.negated ? ' (.not)' : ''}${e.mode ? ` · mode ${esc(e.mode)}` : ''}${e.args ? ` · args ${esc(e.args)}` : ''}${e.runIndex !== undefined ? ` · <a href="#run-${e.runIndex}">run ${e.runIndex}</a>` : ''}</span></h2>
<table class="traj"><thead><tr><th></th><th>#</th><th>Expected</th><th>#</th><th>Actual</th></tr></thead><tbody>${rows}</tbody></table>
${block('Matcher message', pre(plain(e.message)))}
</section>`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function countDeep(nodes: SpanNode[], type: string): number {
  let n = 0;
  for (const node of nodes) n += (node.type === type ? 1 : 0) + countDeep(node.children, type);
  return n;
}

/** The page for one trace. */
export function renderTimeline(tree: TraceTree): string {
  const test = tree.roots.find((r) => r.type === 'test');
  const title = String(
    test?.attributes['test.name'] ?? tree.resource['test.name'] ?? tree.roots[0]?.name ?? 'trace',
  );
  const file = String(test?.attributes['test.file'] ?? tree.resource['test.file'] ?? '');
  const status = String(
    test?.attributes['test.status'] ?? (tree.roots.some((r) => r.status.code === 2) ? 'failed' : 'passed'),
  );
  const top = test ? test.children : tree.roots;
  const runs = top.filter((n) => n.type === 'run');
  const loose = top.filter((n) => n.type === 'model');
  const expectationAttr = test?.attributes['understudy.expectation'];
  const expectation = expectationAttr === undefined ? undefined : (parsed(expectationAttr) as Expectation);
  const errors = (test?.events ?? []).filter((e) => e.name === 'exception');
  const omittedAttr = test?.attributes['understudy.omitted'];
  const omitted = omittedAttr === undefined ? '' : describeOmissions(parsed(omittedAttr) as Omissions);
  const all = tree.roots;
  const counts = {
    runs: countDeep(all, 'run'),
    model: countDeep(all, 'model'),
    tool: countDeep(all, 'tool'),
    operation: countDeep(all, 'operation'),
  };
  const looseSection =
    loose.length > 0
      ? `<section class="run" id="loose"><h2>Model calls outside any run</h2><ol class="steps">${loose
          .map((n, i) =>
            modelStep(
              n,
              loose[0].start,
              Math.max(...loose.map((l) => l.start + l.duration)) - loose[0].start,
              `loose-${i}`,
            ),
          )
          .join('')}</ol></section>`
      : '';
  const errorSection =
    errors.length > 0
      ? `<section class="failure"><h2>Why the test failed</h2>${errors
          .map((e) => {
            const message = plain(e.attributes['exception.message']);
            const headline = message.split('\n').find((l) => l.trim() !== '') ?? '';
            // With the trajectory table above, the matcher's full message is one click away.
            return `<details class="errbox"${expectation ? '' : ' open'}><summary>${badge(String(e.attributes['understudy.phase'] ?? 'test'), 'plain')} <b>${esc(e.attributes['exception.type'] ?? 'Error')}</b> ${esc(headline)}</summary>${pre(message)}</details>`;
          })
          .join('')}</section>`
      : '';
  const empty =
    runs.length === 0 && loose.length === 0
      ? '<p class="dim empty">This test made no model calls and ran no agent.</p>'
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${esc(status === 'failed' ? '✗ ' : '✓ ')}${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<div class="headline">${badge(status, status === 'failed' ? 'bad' : 'ok')}<h1>${esc(title)}</h1></div>
<div class="meta"><span>${esc(file)}</span><span>${plural(counts.runs, 'run')} · ${plural(counts.model, 'model call')} · ${plural(counts.tool, 'tool call')} · ${plural(counts.operation, 'operation')}</span><span class="dim">trace ${esc(tree.traceId)}</span></div>
<div class="controls">
<input id="q" type="search" placeholder="Search steps (press /)" autocomplete="off" aria-label="Search steps">
<label><input type="checkbox" data-kind="model" checked> model calls</label>
<label><input type="checkbox" data-kind="tool" checked> tool calls</label>
<label><input type="checkbox" data-kind="operation" checked> operations</label>
<label><input type="checkbox" id="only-bad"> only errors &amp; overrides</label>
<button type="button" id="expand">Expand all</button><button type="button" id="collapse">Collapse all</button>
<span id="shown" class="dim"></span>
</div>
</header>
<main>
${omitted ? `<p class="omitted">${esc(omitted)}</p>` : ''}
${expectation ? expectationSection(expectation) : ''}
${errorSection}
${runs.map(runSection).join('\n')}
${looseSection}
${empty}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

const CSS = `
:root{--bg:#f7f7f9;--fg:#1d1f24;--dim:#6b7080;--card:#fff;--line:#e3e4ea;--ok:#127a3e;--okbg:#e3f5ea;--bad:#b42318;--badbg:#fdecea;--warn:#9a6700;--warnbg:#fff4d6;--ov:#6941c6;--ovbg:#f1ebff;--model:#175cd3;--tool:#0e7490;--op:#7a5af8;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
@media (prefers-color-scheme:dark){:root{--bg:#14161a;--fg:#e6e7eb;--dim:#9aa0ad;--card:#1c1f24;--line:#2c3038;--okbg:#12301f;--badbg:#3a1612;--warnbg:#3a2e0c;--ovbg:#2a1f47;--ok:#5fd38b;--bad:#ff8a7a;--warn:#f5c451;--ov:#b69cff;--model:#7fb0ff;--tool:#5ad1e6;--op:#b69cff}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif}
header{position:sticky;top:0;z-index:5;background:color-mix(in srgb,var(--bg) 92%,transparent);backdrop-filter:blur(6px);border-bottom:1px solid var(--line);padding:10px 20px}
.headline{display:flex;gap:10px;align-items:center}h1{font-size:17px;margin:0;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.meta{display:flex;gap:18px;flex-wrap:wrap;color:var(--dim);font-size:12.5px;margin:4px 0 8px}
.controls{display:flex;gap:12px;align-items:center;flex-wrap:wrap;font-size:13px}.controls input[type=search]{width:260px;padding:5px 9px;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--fg)}
button{border:1px solid var(--line);background:var(--card);color:var(--fg);border-radius:6px;padding:4px 10px;cursor:pointer}button:hover{border-color:var(--dim)}
main{padding:16px 20px 60px;max-width:1200px}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 16px;margin:0 0 16px}
section.bad,section.failure{border-left:4px solid var(--bad)}
h2{font-size:15px;margin:0 0 8px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}h4{margin:10px 0 4px;font-size:12.5px;color:var(--dim);text-transform:uppercase;letter-spacing:.03em}
.dim{color:var(--dim);font-weight:normal}
.badge{display:inline-block;font-size:11.5px;padding:1px 7px;border-radius:10px;font-weight:600;white-space:nowrap}
.badge.ok{background:var(--okbg);color:var(--ok)}.badge.bad{background:var(--badbg);color:var(--bad)}.badge.warn{background:var(--warnbg);color:var(--warn)}.badge.override{background:var(--ovbg);color:var(--ov)}.badge.plain{background:var(--bg);color:var(--dim);border:1px solid var(--line)}
pre{font:12.5px/1.45 var(--mono);background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px 10px;margin:4px 0;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word}
pre.bad{border-color:var(--bad);background:var(--badbg)}
.arrow{color:var(--tool)}
details.errbox>summary{cursor:pointer}.errbox{border:1px solid var(--bad);background:var(--badbg);border-radius:8px;padding:8px 10px;margin:6px 0}.errbox pre{background:transparent;border:0;padding:4px 0 0}
.overridebox{border:1px solid var(--ov);background:var(--ovbg);border-radius:8px;padding:4px 10px;margin:6px 0}
.final{margin:4px 0 8px}
ol.steps{list-style:none;margin:8px 0 0;padding:0}
li.turn{font-size:11.5px;color:var(--dim);text-transform:uppercase;letter-spacing:.05em;margin:10px 0 2px;padding-left:2px}
li.step{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:7px;margin:3px 0;background:var(--card)}
li.step.model{border-left-color:var(--model)}li.step.tool{border-left-color:var(--tool);margin-left:22px}li.step.operation{border-left-color:var(--op);margin-left:44px}
ol.ops li.step.operation{margin-left:0}ol.ops{list-style:none;padding:0;margin:4px 0}
li.step.bad{border-color:var(--bad);border-left-color:var(--bad);background:var(--badbg)}li.step.overridden:not(.bad){border-color:var(--ov);border-left-color:var(--ov)}
li.step>details>summary{display:grid;grid-template-columns:62px minmax(120px,max-content) 1fr auto 120px 64px;gap:10px;align-items:center;padding:5px 10px;cursor:pointer;list-style:none}
li.step>details>summary::-webkit-details-marker{display:none}
li.step>details>summary::before{content:'';display:none}
li.step>details[open]>summary{border-bottom:1px solid var(--line)}
.label{font-size:11px;text-transform:uppercase;color:var(--dim);letter-spacing:.04em}
.title{font-family:var(--mono);font-size:12.5px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.summary{color:var(--dim);font-family:var(--mono);font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.outcome{display:flex;gap:4px;justify-content:flex-end}
.bar{position:relative;height:8px;background:var(--bg);border-radius:4px;border:1px solid var(--line)}.bar i{position:absolute;top:0;bottom:0;background:var(--model);border-radius:4px;opacity:.75}
li.step.tool .bar i{background:var(--tool)}li.step.operation .bar i{background:var(--op)}li.step.bad .bar i{background:var(--bad)}
.dur{font-size:12px;color:var(--dim);text-align:right;font-variant-numeric:tabular-nums}
.body{padding:6px 12px 10px}
details.sub{margin:6px 0;border:1px solid var(--line);border-radius:6px;padding:2px 8px}details.sub>summary{cursor:pointer;font-size:12.5px;color:var(--dim);padding:2px 0}
table.kv{border-collapse:collapse;font-size:12.5px;margin:2px 0}table.kv th{text-align:left;color:var(--dim);font-weight:normal;padding:1px 14px 1px 0;vertical-align:top}table.kv td{font-family:var(--mono);word-break:break-all}
ol.msgs{list-style:none;padding:0;margin:4px 0}.msg{border-top:1px dashed var(--line);padding:4px 0}.msg-head{font-size:12px}
.role{font-weight:600;font-size:11.5px;text-transform:uppercase}.role.system{color:var(--ov)}.role.user{color:var(--model)}.role.assistant{color:var(--ok)}.role.tool{color:var(--tool)}
pre.text{white-space:pre-wrap}pre.reasoning{font-style:italic}
.call{font-family:var(--mono);font-size:12.5px;margin:2px 0}
.tooldef{margin:6px 0}
table.traj{border-collapse:collapse;width:100%;font:12.5px var(--mono)}table.traj th{text-align:left;color:var(--dim);font-weight:normal;border-bottom:1px solid var(--line);padding:3px 6px}table.traj td{padding:3px 6px;border-bottom:1px solid var(--line)}
table.traj tr.miss td{background:var(--warnbg)}table.traj tr.fold td{font-family:system-ui,sans-serif;font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:0}table.traj tr.diverge td{background:var(--badbg);color:var(--bad);font-weight:600}table.traj td.gut{width:18px;color:var(--dim)}
.hidden{display:none!important}.empty{padding:10px}.omitted{margin:10px 0;padding:8px 12px;border:1px solid var(--ov);border-radius:7px;background:var(--card)}
mark{background:var(--warnbg);color:inherit}
`;

const SCRIPT = `
(function(){
  var q=document.getElementById('q'),onlyBad=document.getElementById('only-bad'),shown=document.getElementById('shown');
  var steps=[].slice.call(document.querySelectorAll('li.step')),kinds=[].slice.call(document.querySelectorAll('input[data-kind]'));
  function apply(){
    var text=q.value.trim().toLowerCase(),on={},n=0;
    kinds.forEach(function(k){on[k.getAttribute('data-kind')]=k.checked});
    steps.forEach(function(s){
      var ok=on[s.getAttribute('data-kind')]!==false&&(!text||s.getAttribute('data-search').indexOf(text)>=0)&&(!onlyBad.checked||s.classList.contains('bad')||s.classList.contains('overridden'));
      s.classList.toggle('hidden',!ok);if(ok)n++;
    });
    document.querySelectorAll('li.turn').forEach(function(t){
      var el=t.nextElementSibling,any=false;
      while(el&&!el.classList.contains('turn')){if(el.classList.contains('step')&&!el.classList.contains('hidden'))any=true;el=el.nextElementSibling}
      t.classList.toggle('hidden',!any);
    });
    shown.textContent=n+' of '+steps.length+' steps';
  }
  function setAll(open){steps.forEach(function(s){if(!s.classList.contains('hidden')){var d=s.querySelector('details');if(d)d.open=open}})}
  q.addEventListener('input',apply);onlyBad.addEventListener('change',apply);
  kinds.forEach(function(k){k.addEventListener('change',apply)});
  document.getElementById('expand').addEventListener('click',function(){setAll(true)});
  document.getElementById('collapse').addEventListener('click',function(){setAll(false)});
  document.addEventListener('keydown',function(e){if(e.key==='/'&&document.activeElement!==q){e.preventDefault();q.focus()}if(e.key==='Escape'&&document.activeElement===q){q.value='';apply();q.blur()}});
  steps.forEach(function(s){if(s.classList.contains('bad')){var d=s.querySelector('details');if(d)d.open=true}});
  apply();
})();
`;
