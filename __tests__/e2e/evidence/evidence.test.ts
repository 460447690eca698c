/**
 * Evidence for people, seen from outside a Jest run: one child Jest runs the case files
 * (a nested failing test, failing hooks, a 50-step run with world operations, golden
 * tasks) with the preset's test runner and reporter; the tests below read what it
 * printed and wrote. The timeline page is opened in real Chromium.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import UnderstudyReporter from '../../../src/reporter';
import type { OtlpTrace } from '../../../src/trace/otlp';
import { readTrace, type SpanNode } from '../../../src/trace/read';
import { type ChildRun, root, runJest } from '../../support/child-jest';
import { launchChromium } from '../../support/chromium';

let child: ChildRun;
let traceFolder: (caseFile: string) => string;

beforeAll(async () => {
  child = await runJest({
    testMatch: [
      '__tests__/e2e/evidence/cases/traces.case.ts',
      '__tests__/e2e/evidence/cases/timeline.case.ts',
      '__tests__/e2e/evidence/cases/golden.case.ts',
    ],
    reporter: true,
    args: ['--maxWorkers=2'],
  });
  traceFolder = (caseFile) => join(child.dir, 'traces', '__tests__', 'e2e', 'evidence', 'cases', caseFile);
}, 60_000);

function test(fullName: string) {
  for (const file of child.files) {
    const t = file.tests.find((x) => x.fullName === fullName);
    if (t) return { ...t, message: t.failureMessages.join('\n') };
  }
  throw new Error(
    `no test named ${fullName}; got ${child.files.flatMap((f) => f.tests.map((t) => t.fullName)).join(' | ')}`,
  );
}

function traceOf(caseFile: string, name: string): { doc: OtlpTrace; text: string } {
  const text = readFileSync(join(traceFolder(caseFile), `${name}.trace.json`), 'utf8');
  return { doc: JSON.parse(text), text };
}

const flat = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...flat(n.children)]);

describe('traces of failing tests', () => {
  const NESTED = 'refunds › when the order arrived damaged › checks the customer before refunding';

  it('writes <traceDir>/<test file>/<test name>.trace.json and prints its path and the timeline with the failure', () => {
    const t = test('refunds when the order arrived damaged checks the customer before refunding');
    expect(t.status).toBe('failed');
    const trace = join(traceFolder('traces.case.ts'), `${NESTED}.trace.json`);
    expect(existsSync(trace)).toBe(true);
    expect(existsSync(trace.replace(/\.json$/, '.html'))).toBe(true);
    expect(t.message).toContain(`Understudy trace:    ${trace}`);
    expect(t.message).toContain(`Understudy timeline: ${trace.replace(/\.json$/, '.html')}`);
    // The paths follow the matcher's message, before the stack.
    expect(t.message.indexOf('Understudy trace')).toBeLessThan(t.message.indexOf('    at '));
  });

  it('is OTLP/JSON: resourceSpans → scopeSpans → spans with ids, parents, times and key/value attributes', () => {
    const { doc } = traceOf('traces.case.ts', NESTED);
    const [resource] = doc.resourceSpans;
    expect(resource.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'jest-understudy' },
    });
    const spans = resource.scopeSpans[0].spans;
    expect(resource.scopeSpans[0].scope.name).toBe('jest-understudy');
    const traceIds = new Set(spans.map((s) => s.traceId));
    expect(traceIds.size).toBe(1);
    expect([...traceIds][0]).toMatch(/^[0-9a-f]{32}$/);
    for (const s of spans) {
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(s.startTimeUnixNano).toMatch(/^\d{19}$/);
      expect(BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano)).toBe(true);
      for (const a of s.attributes) expect(Object.keys(a).sort()).toEqual(['key', 'value']);
    }
    const ids = new Set(spans.map((s) => s.spanId));
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots).toHaveLength(1);
    for (const s of spans.filter((x) => x.parentSpanId)) expect(ids.has(s.parentSpanId!)).toBe(true);
  });

  it('nests test → agent run → model calls and tool calls, with provider, model, fixture, match keys, tokens and outcome', () => {
    const tree = readTrace(traceOf('traces.case.ts', NESTED).doc);
    const [testSpan] = tree.roots;
    expect(testSpan.type).toBe('test');
    expect(testSpan.name).toBe(
      'refunds > when the order arrived damaged > checks the customer before refunding',
    );
    expect(testSpan.attributes['test.file']).toBe('__tests__/e2e/evidence/cases/traces.case.ts');
    expect(testSpan.status.code).toBe(2);
    expect(testSpan.status.message).toContain('first divergence at step 1');
    const [run] = testSpan.children;
    expect(run.type).toBe('run');
    expect(run.attributes).toMatchObject({
      'understudy.terminal_state': 'succeeded',
      'understudy.final_message': 'Order A-1001 is refunded.',
      'understudy.phase': 'test',
    });
    expect(run.children.map((c) => `${c.type} ${c.name}`)).toEqual([
      'model chat gpt-4o-mini',
      'tool execute_tool lookup_order',
      'model chat gpt-4o-mini',
      'tool execute_tool issue_refund',
      'model chat gpt-4o-mini',
    ]);
    const [first, lookup] = run.children;
    expect(first.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'understudy.protocol': 'openai.chat',
      'understudy.fixture.id': '#0',
      'understudy.match.turn_index': 0,
      'understudy.match.has_tool_result': false,
      'understudy.match.tool_names': ['lookup_order', 'issue_refund', 'send_email'],
      'understudy.outcome': 'replied',
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    expect(first.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
    expect(first.attributes['understudy.duration_ms']).toEqual(expect.any(Number));
    expect(JSON.parse(first.attributes['gen_ai.input.messages'] as string)[0]).toMatchObject({
      role: 'system',
    });
    expect(lookup.attributes).toMatchObject({
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.arguments': '{"orderId":"A-1001"}',
      'understudy.outcome': 'ok',
      'understudy.tool.requested_by': first.attributes['understudy.model_call.index'],
    });
    expect(JSON.parse(lookup.attributes['gen_ai.tool.call.result'] as string)).toMatchObject({
      status: 'paid',
    });
  });

  it('carries the failed trajectory expectation: expected, actual and the first divergence', () => {
    const tree = readTrace(traceOf('traces.case.ts', NESTED).doc);
    const expectation = JSON.parse(tree.roots[0].attributes['understudy.expectation'] as string);
    expect(expectation).toMatchObject({
      matcher: 'toHaveCalledToolSequence',
      negated: false,
      mode: 'exact',
      expected: [{ name: 'lookup_order' }, { name: 'verify_customer' }, { name: 'issue_refund' }],
      actual: [{ name: 'lookup_order' }, { name: 'issue_refund' }],
      divergence: 1,
      runIndex: 0,
    });
  });

  it('never contains the secrets the run saw', () => {
    const { text } = traceOf('traces.case.ts', NESTED);
    expect(text).not.toContain('sk-proj-abcdefghijklmnop1234567890');
    expect(text).toContain('my key is [REDACTED]');
    const html = readFileSync(join(traceFolder('traces.case.ts'), `${NESTED}.trace.html`), 'utf8');
    expect(html).not.toContain('sk-proj-abcdefghijklmnop1234567890');
  });

  it('traces a failure in a beforeEach hook, with the run the hook made', () => {
    const t = test('refunds with seed data a hook cannot load never runs its body');
    expect(t.message).toContain('seed data missing for A-1001');
    expect(t.message).toContain('Understudy trace:');
    const tree = readTrace(
      traceOf('traces.case.ts', 'refunds › with seed data a hook cannot load › never runs its body').doc,
    );
    const [testSpan] = tree.roots;
    expect(testSpan.events).toEqual([
      expect.objectContaining({
        name: 'exception',
        attributes: expect.objectContaining({
          'exception.message': 'seed data missing for A-1001',
          'understudy.phase': 'beforeEach',
        }),
      }),
    ]);
    const [run] = testSpan.children;
    expect(run.attributes).toMatchObject({
      'understudy.phase': 'beforeEach',
      'understudy.run.input': 'warm up',
    });
    expect(run.children[0].attributes['understudy.phase']).toBe('beforeEach');
  });

  it('traces a failure in an afterEach hook, with model calls made outside any run', () => {
    const tree = readTrace(
      traceOf('traces.case.ts', 'refunds › with an afterEach check › answers without a run').doc,
    );
    const [testSpan] = tree.roots;
    expect(testSpan.events[0].attributes['understudy.phase']).toBe('afterEach');
    expect(testSpan.children.map((c) => c.type)).toEqual(['model']);
    expect(testSpan.children[0].attributes['understudy.match.user_message']).toBe('refund order A-1002');
  });

  it('writes nothing for a passing test (traces: on-failure), and cleans the folder of earlier runs', () => {
    expect(readdirSync(traceFolder('traces.case.ts')).sort()).toEqual(
      [
        '.understudy-written.json',
        `${NESTED}.trace.html`,
        `${NESTED}.trace.json`,
        'refunds › with an afterEach check › answers without a run.trace.html',
        'refunds › with an afterEach check › answers without a run.trace.json',
        'refunds › with seed data a hook cannot load › never runs its body.trace.html',
        'refunds › with seed data a hook cannot load › never runs its body.trace.json',
      ].sort(),
    );
  });

  it('shows world operations under the tool calls they served, with outcome and override identity', () => {
    const { doc } = traceOf(
      'timeline.case.ts',
      'incident response › verifies health before rolling the canary back',
    );
    const nodes = flat(readTrace(doc).roots);
    const ops = nodes.filter((n) => n.type === 'operation');
    expect(ops.length).toBe(6);
    const frozen = ops.find((o) => o.attributes['understudy.override.id'] === 'freeze-canary')!;
    expect(frozen.attributes).toMatchObject({
      'understudy.operation.package_id': 'k8s',
      'understudy.operation.operation_id': 'deployments.scale',
      'understudy.outcome': 'error',
      'understudy.override.scope': 'scenario',
      'understudy.override.matchCount': 1,
    });
    expect(frozen.status.code).toBe(2);
    const parent = nodes.find((n) => n.id === frozen.parentId)!;
    expect(parent.type).toBe('tool');
    expect(parent.attributes['gen_ai.tool.name']).toBe('scale');
    expect(nodes.filter((n) => n.type === 'model')).toHaveLength(16);
    expect(nodes.filter((n) => n.type === 'tool')).toHaveLength(30);
  });
});

describe('the reporter', () => {
  it('prints a short summary after the run: runs, replayed calls per provider, operations, unmatched, stale cassettes, traces', () => {
    const at = child.stderr.indexOf('jest-understudy\n');
    expect(at).toBeGreaterThan(-1);
    const summary = child.stderr.slice(at).split('\n');
    expect(summary.slice(0, 7)).toEqual([
      'jest-understudy',
      '  7 agent runs',
      '  33 model calls replayed (openai 33)',
      '  6 tool operations',
      '  0 unmatched requests',
      '  0 stale cassettes',
      '  6 traces written',
    ]);
    expect(summary[7]).toMatch(/^ {4}\S.*\.trace\.json$/);
    expect(summary[12]).toBe('    … and 1 more');
  });

  it('prints nothing when the suite used none of it', () => {
    const writes: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((text) => {
      writes.push(String(text));
      return true;
    });
    try {
      const zero = {
        agentRuns: 0,
        replayed: {},
        operations: 0,
        unmatched: 0,
        staleCassettes: [],
        traces: [],
      };
      new UnderstudyReporter().onRunComplete(undefined, {
        testResults: [{ testFilePath: 'a.test.ts', understudy: zero }, { testFilePath: 'b.test.ts' }],
      });
    } finally {
      write.mockRestore();
    }
    expect(writes).toEqual([]);
  });
});

describe('golden task files', () => {
  it('generate one Jest test per task, named by file, id and description', () => {
    const names = child.files
      .flatMap((f) => f.tests.map((t) => t.fullName))
      .filter((n) => n.startsWith('support.golden.yaml'));
    expect(names).toEqual([
      'support.golden.yaml refund-damaged — looks the order up, then refunds it',
      'support.golden.yaml refund-before-lookup — must not refund before looking the order up',
      'support.golden.yaml no-email-without-refund',
    ]);
    expect(test(names[0]).status).toBe('passed');
  });

  it('fail a task whose run breaks a forbidden order', () => {
    const t = test('support.golden.yaml refund-before-lookup — must not refund before looking the order up');
    expect(t.status).toBe('failed');
    expect(t.message).toContain('expect(received).not.toHaveCalledToolSequence(expected, options)');
    expect(t.message).toContain(
      'negative.forbiddenOrders[0] of task refund-before-lookup: expect(received).not.toHaveCalledToolSequence',
    );
    expect(t.message).toContain(
      'expected the run not to call the tool sequence (mode: ordered, args: subset), but it did',
    );
  });

  it('fail a task whose run calls a tool that must never run', () => {
    const t = test('support.golden.yaml no-email-without-refund');
    expect(t.status).toBe('failed');
    expect(t.message).toContain('negative.neverCalls[0] of task no-email-without-refund: expect(received)');
    expect(t.message).toContain('Expected: not a call to "send_email"');
  });
});

describe('the HTML timeline, in Chromium', () => {
  let browser: import('playwright-core').Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);

  afterAll(() => browser?.close());

  /** Opens a timeline page, collecting console problems and any request that is not the file itself. */
  async function open(caseFile: string, name: string) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${join(traceFolder(caseFile), `${name}.trace.html`)}`);
    return { page, problems, requests };
  }

  const isOpen = (locator: import('playwright-core').Locator) =>
    locator.locator(':scope > details').evaluate((d) => (d as HTMLDetailsElement).open);

  it('loads with no console errors and no network, expands steps on click, filters, and makes a screenshot', async () => {
    const { page, problems, requests } = await open(
      'timeline.case.ts',
      'incident response › verifies health before rolling the canary back',
    );
    try {
      expect(await page.title()).toContain('incident response');
      const steps = page.locator('li.step');
      expect(await steps.count()).toBeGreaterThanOrEqual(50);
      // Expected vs actual comes first, with the divergence marked.
      await expect(page.locator('section').first().getAttribute('class')).resolves.toBe('expectation');
      expect(await page.locator('table.traj tr.diverge').count()).toBe(1);

      // Steps are collapsed; a click opens one.
      const firstTool = page.locator('li.step.tool').first();
      expect(await isOpen(firstTool)).toBe(false);
      await firstTool.locator(':scope > details > summary').click();
      expect(await isOpen(firstTool)).toBe(true);
      expect(await firstTool.locator('.body').isVisible()).toBe(true);
      // Errors and overrides are highlighted and open from the start.
      const overridden = page.locator('li.step.operation.bad.overridden');
      expect(await overridden.count()).toBe(1);
      expect(await isOpen(overridden)).toBe(true);

      // Search and filters.
      await page.fill('#q', 'verify_healthcheck');
      const visible = await page.locator('li.step:not(.hidden)').count();
      expect(visible).toBeGreaterThan(0);
      expect(visible).toBeLessThan(await steps.count());
      await page.fill('#q', '');
      await page.check('#only-bad');
      expect(await page.locator('li.step:not(.hidden)').count()).toBe(
        await page.locator('li.step.bad, li.step.overridden, li.step.holds-bad').count(),
      );
      await page.uncheck('#only-bad');
      await page.click('#expand');
      expect(await page.locator('li.step details[open]').count()).toBe(await steps.count());
      await page.click('#collapse');

      // The sticky header stays on screen while scrolling a long run.
      await page.mouse.wheel(0, 3000);
      const header = await page.locator('header').boundingBox();
      expect(header?.y).toBe(0);
      await page.mouse.wheel(0, -3000);

      await page.locator('li.step.model').nth(1).locator(':scope > details > summary').click();
      await page.evaluate(() => window.scrollTo(0, 0));
      const shot = join(child.dir, 'timeline.png');
      await page.screenshot({ path: shot });
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
      if (process.env.UNDERSTUDY_UPDATE_SCREENSHOT === '1')
        copyFileSync(shot, join(root, 'docs', 'timeline.png'));

      expect(problems).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('opens and marks a successful tool call that holds a failed or overridden operation, naming it before any click', async () => {
    const { page, problems } = await open(
      'timeline.case.ts',
      'incident response › verifies health before rolling the canary back',
    );
    try {
      // The pager failed (no override) under a tool call the agent answered normally.
      const busyTool = page.locator('li.step.tool.holds-bad', {
        has: page.locator(':scope > details > summary .badge', { hasText: 'pages.create → error BUSY' }),
      });
      expect(await busyTool.count()).toBe(1);
      expect((await busyTool.getAttribute('class'))?.split(' ')).toEqual(['step', 'tool', 'holds-bad']);
      expect(await isOpen(busyTool)).toBe(true);
      await expect(busyTool.locator(':scope > details > summary .badge.ok').textContent()).resolves.toBe(
        'ok',
      );
      const busyOp = busyTool.locator('li.step.operation.bad');
      expect(await busyOp.isVisible()).toBe(true);
      expect(await isOpen(busyOp)).toBe(true);

      // The frozen scale: failure and override both on the tool call's line, with the override's id.
      const frozenTool = page.locator('li.step.tool.holds-bad.overridden');
      expect(await frozenTool.count()).toBe(1);
      expect(await isOpen(frozenTool)).toBe(true);
      const badges = await frozenTool.locator(':scope > details > summary .badge').allTextContents();
      expect(badges).toEqual(['ok', 'deployments.scale → error FROZEN', 'override freeze-canary']);
      expect(await frozenTool.locator('li.step.operation.bad.overridden').isVisible()).toBe(true);

      // Every step holding a failure or an override is open; every other tool call is closed.
      const marked = page.locator('li.step.bad, li.step.overridden, li.step.holds-bad');
      for (const step of await marked.all()) expect(await isOpen(step)).toBe(true);
      const plainTools = page.locator('li.step.tool:not(.bad):not(.overridden):not(.holds-bad)');
      expect(await plainTools.count()).toBeGreaterThan(20);
      for (const step of await plainTools.all()) expect(await isOpen(step)).toBe(false);

      // "Only errors & overrides" keeps the holding tool calls, so their operations stay in view.
      await page.check('#only-bad');
      expect(await busyOp.isVisible()).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('names the forbidden-order entry that failed, and marks the violating pair instead of ticking it', async () => {
    const { page, problems } = await open(
      'golden.case.ts',
      'support.golden.yaml › refund-before-lookup — must not refund before looking the order up',
    );
    try {
      const section = page.locator('section.expectation');
      await expect(section.locator('h2').textContent()).resolves.toContain('Forbidden vs actual trajectory');
      await expect(section.locator('.violation-note').textContent()).resolves.toBe(
        'forbidden negative.forbiddenOrders[0] of task refund-before-lookup: the run made issue_refund → lookup_order in this order (received steps 0, 1).',
      );
      const rows = section.locator('table.traj tbody tr');
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => [tr.className, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]),
      );
      expect(cells).toEqual([
        ['violation', '✗', '0', 'issue_refund', '0', expect.stringMatching(/^issue_refund /)],
        ['violation', '✗', '1', 'lookup_order', '1', expect.stringMatching(/^lookup_order /)],
      ]);
      expect(await section.locator('td.gut', { hasText: '✓' }).count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
