/**
 * The live report as one self-contained HTML page in the timeline's look (its CSS, no script,
 * a CSP that forbids any network access): the gates first, then each test with its pass rate,
 * trajectories, percentiles and drift. Markup is built with `html`, which escapes every value.
 */
import { timelineStyles } from '../trace/html';
import { html, join, raw } from '../trace/markup';
import type { LiveReport, Percentiles, TestReport } from './report';

const badge = (text: string, kind: 'ok' | 'bad' | 'warn' | 'plain') =>
  html`<span class="badge ${kind}">${text}</span>`;
const pct = (rate: number | null) => (rate === null ? '–' : `${Math.round(rate * 1000) / 10}%`);
const spread = (p: Percentiles | null, unit: (n: number) => string) =>
  p === null ? '–' : `p50 ${unit(p.p50)} · p90 ${unit(p.p90)} · max ${unit(p.max)}`;
const path = (tools: string[], terminal: string) => `${tools.join(' → ') || '(no tool)'} ⇒ ${terminal}`;

function gateBadge(t: TestReport) {
  if (t.gate === 'not-run') return badge('not run', 'warn');
  return badge(
    `${pct(t.passRate)} ≥ ${pct(t.minPassRate)}`.replace('≥', t.gate === 'passed' ? '≥' : '<'),
    t.gate === 'passed' ? 'ok' : 'bad',
  );
}

function testSection(t: TestReport) {
  const drift = t.drift;
  const driftBadge =
    drift.score === null
      ? badge('no drift score', 'plain')
      : badge(`drift ${drift.score}`, drift.score > 0 ? 'warn' : 'ok');
  return html`<section class="${t.gate === 'failed' ? 'failure' : ''}">
<h2>${gateBadge(t)} ${t.name}</h2>
<div class="meta"><span>${t.file}</span><span>${t.passed} of ${t.runs} runs passed</span>${t.stopped + t.notRun > 0 ? html`<span class="dim">${t.stopped} stopped and ${t.notRun} not run by the budget</span>` : ''}</div>
<h4>Trajectories</h4>
<table class="kv">${join(t.trajectories.map((x) => html`<tr><td>${x.count}×</td><td><code>${path(x.tools, x.terminal)}</code></td></tr>`))}</table>
<h4>Latency, tokens, cost</h4>
<table class="kv">
<tr><td>latency</td><td>${spread(t.latencyMs, (n) => `${n} ms`)}</td></tr>
<tr><td>tokens</td><td>${spread(t.tokens, String)}</td></tr>
<tr><td>cost</td><td>${spread(t.usd, (n) => `$${n.toFixed(4)}`)}</td></tr>
</table>
<h4>Drift from the cassette</h4>
<div class="meta">${driftBadge}<span>${drift.cassette}</span>${drift.refreshed ? badge('re-recorded', 'warn') : ''}</div>
${drift.recorded ? html`<div class="dim">recorded: <code>${path(drift.recorded.tools, drift.recorded.terminal)}</code></div>` : ''}
<ul>${join(drift.changes.map((c) => html`<li>${c}</li>`))}</ul>
</section>`;
}

export function renderLiveReport(report: LiveReport): string {
  const failed = report.tests.filter((t) => t.gate === 'failed').length;
  const b = report.budget;
  const caps = [
    b.tokens !== undefined ? `${b.tokens} tokens` : '',
    b.usd !== undefined ? `$${b.usd}` : '',
  ].filter(Boolean);
  const status =
    failed > 0
      ? badge(`${failed} below the gate`, 'bad')
      : report.exitCode === 3
        ? badge('budget reached', 'warn')
        : badge('gates passed', 'ok');
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${failed > 0 ? '✗ ' : '✓ '}understudy live</title>
<style>${raw(timelineStyles())}table.kv td:first-child{padding-right:1em;white-space:nowrap}</style>
</head>
<body>
<header>
<div class="headline">${status}<h1>understudy live --repeat ${report.repeat}</h1></div>
<div class="meta"><span>${report.runner}</span><span>${report.tests.length} tests · ${report.repetitions} repetitions</span><span>spent ${b.spentTokens} tokens, $${b.spentUsd.toFixed(4)}${caps.length > 0 ? ` of ${caps.join(' / ')}` : ''}</span>${b.reached ? html`<span class="dim">stopped: ${b.reached}</span>` : ''}<span class="dim">${report.at}</span></div>
</header>
<main>
${join(report.tests.map(testSection))}
</main>
</body>
</html>
`.toString();
}
