/**
 * docs/benchmarks.md shows the last whole bench run and nothing else: its figures section is what
 * bench/figures.cjs renders from bench/results.json, and the page stays a user page (the lab notes
 * live in bench/NOTES.md).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

const figures = require('../../bench/figures.cjs') as {
  PAGE: string;
  RESULTS: string;
  START: string;
  END: string;
  renderFigures(results: unknown): string;
  withFigures(page: string, section: string): string;
};

const page = readFileSync(figures.PAGE, 'utf8');
const results = JSON.parse(readFileSync(figures.RESULTS, 'utf8'));

describe('docs/benchmarks.md', () => {
  it('shows the figures of bench/results.json', () => {
    const section = page.slice(page.indexOf(figures.START), page.indexOf(figures.END) + figures.END.length);
    expect(section).toBe(figures.renderFigures(results));
  });

  it('a figure that changed in bench/results.json changes the page', () => {
    const changed = structuredClone(results);
    const [row] = Object.keys(changed.calls.ratios);
    changed.calls.ratios[row].environmentOverFloor += 1;
    expect(figures.withFigures(page, figures.renderFigures(changed))).not.toBe(page);
  });

  it('counts the missed targets from the verdicts', () => {
    const verdicts = results.verdicts as { label: string; ok: boolean }[];
    const passed = verdicts.filter((v) => v.ok).length;
    expect(page).toContain(`**${passed} of ${verdicts.length} targets pass.**`);
  });

  it('refuses a page without the section markers, naming them', () => {
    expect(() => figures.withFigures('# Benchmarks\n', 'x')).toThrow(
      /docs\/benchmarks\.md: expected the markers/,
    );
  });

  it('stays a user page: under 150 lines', () => {
    expect(page.split('\n').length).toBeLessThan(150);
  });
});
