/**
 * The run as JUnit XML (the reporter's `junit` option), in the shape of the common JUnit schema
 * (Jenkins' junit-10.xsd, which CI servers read): a `testsuite` per test file, a `testcase` per
 * test with its time, a `failure` with message and type for a failed one, an `error` for a file
 * that failed outside its tests. That schema allows properties on a suite only, so each failing
 * test's trace and timeline are properties of its file's suite (`understudy.trace: <test>`), and
 * attachments of the test itself in its `system-out` (`[[ATTACHMENT|path]]`, as Jenkins' and
 * GitLab's test reports read them).
 */
import { type CaseResult, cleanMessage, shownPath, trajectoryLines } from './cases';

// XML 1.0 has no place for most control characters or lone surrogates, even escaped.
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML refuses.
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const text = (value: string) =>
  value.replace(NOT_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const attr = (value: string) =>
  text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');

const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3);

export interface JunitOptions {
  /** Paths are written relative to it (the working directory). */
  root: string;
  /** The `testsuites` name. */
  name?: string;
  /** When the run started (the suites' `timestamp`). */
  startedAt?: Date;
}

function failureBody(c: CaseResult, root: string): string {
  const lines = [cleanMessage(c.failure?.message ?? 'failed')];
  if (c.failure?.line) lines.push('', `at ${shownPath(root, c.file)}:${c.failure.line}`);
  const e = c.note?.expectation;
  if (e) lines.push('', `Trajectory (${e.negated ? '.not.' : ''}${e.matcher}):`, ...trajectoryLines(e));
  if (c.note?.trace) lines.push('', `Understudy trace:    ${shownPath(root, c.note.trace)}`);
  if (c.note?.timeline) lines.push(`Understudy timeline: ${shownPath(root, c.note.timeline)}`);
  return lines.join('\n');
}

const firstLine = (message: string) =>
  cleanMessage(message)
    .split('\n')
    .find((l) => l.trim() !== '') ?? '';

function testcase(c: CaseResult, suite: string, root: string, indent: string): string {
  const name = c.name === '' ? '(outside its tests)' : c.name;
  const open = `${indent}<testcase name="${attr(name)}" classname="${attr(suite)}" time="${seconds(c.durationMs)}"`;
  if (c.status === 'passed') return `${open}/>`;
  if (c.status === 'skipped') return `${open}>\n${indent}  <skipped/>\n${indent}</testcase>`;
  const element = c.name === '' ? 'error' : 'failure';
  const message = c.failure?.message ?? 'failed';
  const inner = [
    `${indent}  <${element} message="${attr(firstLine(message))}" type="${attr(c.failure?.type ?? 'Error')}">${text(failureBody(c, root))}</${element}>`,
  ];
  const attachments = [c.note?.trace, c.note?.timeline].filter((p): p is string => typeof p === 'string');
  if (attachments.length > 0)
    inner.push(
      `${indent}  <system-out>${text(attachments.map((p) => `[[ATTACHMENT|${p}]]`).join('\n'))}</system-out>`,
    );
  return `${open}>\n${inner.join('\n')}\n${indent}</testcase>`;
}

/** The run's JUnit XML document (ends with a newline). */
export function junitXml(cases: readonly CaseResult[], options: JunitOptions): string {
  const { root } = options;
  const byFile = new Map<string, CaseResult[]>();
  for (const c of cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  const timestamp = (options.startedAt ?? new Date()).toISOString().replace(/\.\d{3}Z$/, '');
  const totals = { tests: 0, failures: 0, errors: 0, time: 0 };
  const suites: string[] = [];
  for (const [file, all] of byFile) {
    const suite = shownPath(root, file);
    const tests = all.filter((c) => c.name !== '');
    const failures = tests.filter((c) => c.status === 'failed').length;
    const errors = all.length - tests.length;
    const skipped = tests.filter((c) => c.status === 'skipped').length;
    const time = all.reduce((sum, c) => sum + (c.durationMs ?? 0), 0);
    totals.tests += tests.length;
    totals.failures += failures;
    totals.errors += errors;
    totals.time += time;
    const properties = all.flatMap((c) => [
      ...(c.note?.trace ? [[`understudy.trace: ${c.name}`, shownPath(root, c.note.trace)]] : []),
      ...(c.note?.timeline ? [[`understudy.timeline: ${c.name}`, shownPath(root, c.note.timeline)]] : []),
    ]);
    suites.push(
      [
        `  <testsuite name="${attr(suite)}" tests="${tests.length + errors}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(time)}" timestamp="${timestamp}" file="${attr(suite)}">`,
        ...(properties.length > 0
          ? [
              '    <properties>',
              ...properties.map(
                ([name, value]) => `      <property name="${attr(name)}" value="${attr(value)}"/>`,
              ),
              '    </properties>',
            ]
          : []),
        ...all.map((c) => testcase(c, suite, root, '    ')),
        '  </testsuite>',
      ].join('\n'),
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attr(options.name ?? 'jest-understudy')}" tests="${totals.tests + totals.errors}" failures="${totals.failures}" errors="${totals.errors}" time="${seconds(totals.time)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
