/**
 * The pyramid's matchers and timeline, from the installed package under Jest (CommonJS and ESM)
 * and Vitest: outcome, argsBy, permission, step-count and span matchers on a real agent run, each
 * with a case that must fail when the agent did what it forbids; the timeline of a tool call over
 * a failed, overridden operation and of a golden task's forbidden order, opened in Chromium.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { launchChromium } from '../support/chromium';
import { fileOf, type InstalledProjectRun, messageOf, statuses } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

let browser: import('playwright-core').Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(() => browser?.close());

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'the pyramid from the installed package (%s)',
  (_kind, runner) => {
    let run: InstalledProjectRun;
    beforeAll(async () => {
      run = await sharedRun('pyramid', runner);
    }, 120_000);

    describe('the pyramid matchers', () => {
      it('pass where the run holds, and fail every false-green case', () => {
        const file = fileOf(run, 'pyramid-matchers.case.js');
        expect(
          messageOf(file, 'passes on outcomes, argsBy, permissions, step counts and spans that hold'),
        ).toBe('');
        expect(statuses(file)).toEqual({
          'passes on outcomes, argsBy, permissions, step counts and spans that hold': 'passed',
          'no false green: toNeverCallTools fails when the agent called one': 'failed',
          'no false green: toOnlyCallTools fails when the agent called another tool': 'failed',
          'no false green: outcome ok fails when every page the agent sent first failed BUSY': 'failed',
          'no false green: argsBy naming an argument still compares it': 'failed',
          'no false green: a step-count bound fails on a run with more steps': 'failed',
          'no false green: no error spans fails when an operation failed': 'failed',
        });
        expect(messageOf(file, 'no false green: toNeverCallTools fails when the agent called one')).toContain(
          'first forbidden call at step 1: "page_oncall"',
        );
        expect(
          messageOf(file, 'no false green: toOnlyCallTools fails when the agent called another tool'),
        ).toContain('first call outside the allowed tools at step 1: "page_oncall"');
        expect(
          messageOf(
            file,
            'no false green: outcome ok fails when every page the agent sent first failed BUSY',
          ),
        ).toContain('page_oncall');
        expect(messageOf(file, 'no false green: a step-count bound fails on a run with more steps')).toMatch(
          /4/,
        );
      });
    });

    describe('the timeline, in Chromium', () => {
      const page = (name: string) =>
        join(run.project, '.understudy', 'traces', 'pyramid-timeline.case.js', `${name}.trace.html`);
      const isOpen = (locator: import('playwright-core').Locator) =>
        locator.locator(':scope > details').evaluate((d) => (d as HTMLDetailsElement).open);

      it('fails the golden task that breaks its forbidden order, naming the entry; the other passes', () => {
        const file = fileOf(run, 'pyramid-timeline.case.js');
        expect(statuses(file)).toEqual({
          'pages once the pager is free': 'failed',
          'page-before-lookup': 'failed',
          'lookup-before-page': 'passed',
        });
        expect(messageOf(file, 'page-before-lookup')).toContain(
          'negative.forbiddenOrders[0] of task page-before-lookup: expect(received).not.toHaveCalledToolSequence',
        );
      });

      it('opens the tool call that sent its failed, overridden operation back as an error, and names both on its line', async () => {
        const p = await browser.newPage();
        const problems: string[] = [];
        p.on('pageerror', (e) => problems.push(e.message));
        try {
          await p.goto(`file://${page('pages once the pager is free')}`);
          const held = p.locator('li.step.tool.holds-bad.overridden');
          expect(await held.count()).toBe(1);
          expect(await isOpen(held)).toBe(true);
          // The agent sent `{ error: 'BUSY' }` back to the model: the call ended in error, as its operation did.
          expect(await held.locator(':scope > details > summary .badge').allTextContents()).toEqual([
            'error',
            'pages.create → error BUSY',
            'override busy-once',
          ]);
          expect(await held.locator('li.step.operation.bad.overridden').isVisible()).toBe(true);
          // The retry that went through is a plain tool call: closed, unmarked.
          const plain = p.locator('li.step.tool:not(.bad):not(.overridden):not(.holds-bad)');
          expect(await plain.count()).toBe(1);
          expect(await isOpen(plain)).toBe(false);
          expect(problems).toEqual([]);
        } finally {
          await p.close();
        }
      }, 60_000);

      it('names the forbidden-order entry and marks the violating pair, none ticked', async () => {
        const p = await browser.newPage();
        try {
          const dir = join(run.project, '.understudy', 'traces', 'pyramid-timeline.case.js');
          const html = readdirSync(dir).find((f) => f.includes('page-before-lookup') && f.endsWith('.html'));
          expect(html).toBeDefined();
          expect(readdirSync(dir).some((f) => f.includes('lookup-before-page'))).toBe(false);
          await p.goto(`file://${join(dir, html as string)}`);
          const section = p.locator('section.expectation');
          expect(await section.locator('.violation-note').textContent()).toBe(
            'forbidden negative.forbiddenOrders[0] of task page-before-lookup: the run made page_oncall → lookup_order in this order (received steps 0, 1).',
          );
          const gutters = await section.locator('table.traj tbody tr td.gut').allTextContents();
          expect(gutters).toEqual(['✗', '✗']);
        } finally {
          await p.close();
        }
      }, 60_000);
    });
  },
);
