/**
 * The repository's check of what this example's README shows: agent.test.ts and the
 * regression's golden task run in a child Jest with `traces: 'always'` (a user sets it, or
 * UNDERSTUDY_TRACES=always, to keep the timeline of a passing test too), into a temp folder;
 * the timelines are then opened in headless Chromium.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Locator } from 'playwright-core';
import { type ChildRun, runJest } from '../../__tests__/support/child-jest';
import { launchChromium } from '../../__tests__/support/chromium';

const BUSY = 'booking a callback › rides out a busy calendar (the tool retries) and books the customer once';
const REGRESSION = 'regression.golden.yaml › book-without-looking — must find a free slot before booking';

let child: ChildRun;
let browser: Browser;

beforeAll(async () => {
  child = await runJest({
    testMatch: ['examples/booking-agent/agent.test.ts', 'examples/booking-agent/regression/*.test.ts'],
    understudy: { traces: 'always' },
    args: ['--maxWorkers=2'],
  });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (child) rmSync(child.dir, { recursive: true, force: true });
});

const testNamed = (fullName: string) => {
  const test = child.files.flatMap((f) => f.tests).find((t) => t.fullName === fullName);
  if (!test) throw new Error(`the child Jest ran no test named ${fullName}:\n${child.stderr}`);
  return { ...test, message: test.failureMessages.join('\n') };
};

const timelineOf = (testFile: string, name: string) =>
  join(child.dir, 'traces', 'examples', 'booking-agent', testFile, `${name}.trace.html`);

async function openTimeline(testFile: string, name: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(`file://${timelineOf(testFile, name)}`);
  return { page, problems };
}

const isOpen = (step: Locator) =>
  step.locator(':scope > details').evaluate((d) => (d as HTMLDetailsElement).open);

describe('the timeline of a passing run with a retried booking', () => {
  it('passes, and writes its timeline because traces is "always"', () => {
    expect(testNamed(BUSY.replace(' › ', ' ')).status).toBe('passed');
    expect(existsSync(timelineOf('agent.test.ts', BUSY))).toBe(true);
  });

  it('opens and marks the tool call that holds the failed, overridden booking', async () => {
    const { page, problems } = await openTimeline('agent.test.ts', BUSY);
    try {
      const booking = page.locator('li.step.tool', {
        has: page.locator(':scope > details > summary', { hasText: 'book_callback' }),
      });
      expect(await booking.count()).toBe(1);
      expect((await booking.getAttribute('class'))?.split(' ').sort()).toEqual([
        'holds-bad',
        'overridden',
        'step',
        'tool',
      ]);
      expect(await isOpen(booking)).toBe(true);
      // The tool call succeeded; its line names the failed attempt and the override behind it.
      expect(await booking.locator(':scope > details > summary .badge').allTextContents()).toEqual([
        'ok',
        'events.create → error BUSY',
        'override busy-once',
      ]);
      const attempts = booking.locator('li.step.operation');
      expect(await attempts.count()).toBe(2);
      expect((await attempts.nth(0).getAttribute('class'))?.split(' ')).toEqual(
        expect.arrayContaining(['bad', 'overridden']),
      );
      expect(await attempts.nth(0).isVisible()).toBe(true);

      // The lookup before it held nothing wrong: closed, unmarked.
      const lookup = page.locator('li.step.tool', {
        has: page.locator(':scope > details > summary', { hasText: 'find_free_slots' }),
      });
      expect((await lookup.getAttribute('class'))?.split(' ')).toEqual(['step', 'tool']);
      expect(await isOpen(lookup)).toBe(false);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe('a golden task that breaks a forbidden order', () => {
  it('fails with a message that names negative.forbiddenOrders[0]', () => {
    const test = testNamed(REGRESSION.replace(' › ', ' '));
    expect(test.status).toBe('failed');
    expect(test.message).toContain(
      'negative.forbiddenOrders[0] of task book-without-looking: expect(received).not.toHaveCalledToolSequence',
    );
    expect(child.code).toBe(1);
  });

  it('marks the violating pair in the timeline instead of ticking it', async () => {
    const { page, problems } = await openTimeline(join('regression', 'regression.test.ts'), REGRESSION);
    try {
      const section = page.locator('section.expectation');
      await expect(section.locator('h2').textContent()).resolves.toContain('Forbidden vs actual trajectory');
      await expect(section.locator('.violation-note').textContent()).resolves.toBe(
        'forbidden negative.forbiddenOrders[0] of task book-without-looking: the run made book_callback → find_free_slots in this order (received steps 0, 1).',
      );
      const rows = await section
        .locator('table.traj tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [tr.className, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]),
        );
      expect(rows).toEqual([
        ['violation', '✗', '0', 'book_callback', '0', expect.stringMatching(/^book_callback /)],
        ['violation', '✗', '1', 'find_free_slots', '1', expect.stringMatching(/^find_free_slots /)],
      ]);
      expect(await section.locator('td.gut', { hasText: '✓' }).count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
