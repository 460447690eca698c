/**
 * The trace of a test touching every attribute, written, read back and shown, compared byte for
 * byte with the golden files beside it: a change to the writer, the reader or the views that
 * alters what a user gets shows here. `UNDERSTUDY_UPDATE_GOLDEN=1` rewrites the files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { renderTimeline } from '../../../../src/trace/html';
import { testTrace } from '../../../../src/trace/otlp';
import { readTrace } from '../../../../src/trace/read';
import { renderTree } from '../../../../src/trace/tree';
import { goldenEvidence, goldenTest, stableIds } from './golden.evidence';

const folder = __dirname;

function golden(name: string, text: string): void {
  const file = join(folder, `golden.${name}`);
  if (process.env.UNDERSTUDY_UPDATE_GOLDEN === '1') writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

describe('the golden trace', () => {
  const trace = stableIds(testTrace(goldenTest, goldenEvidence));

  it('is written as before', () => {
    golden('trace.json', `${JSON.stringify(trace, null, 2)}\n`);
  });

  it('reads back into the same text tree', () => {
    golden('tree.txt', `${renderTree(readTrace(trace))}\n`);
    golden('tree-full.txt', `${renderTree(readTrace(trace), { full: true, color: true })}\n`);
  });

  it('reads back into the same timeline (its page assets aside)', () => {
    const page = renderTimeline(readTrace(trace))
      .replace(/<style>[\s\S]*?<\/style>/, '<style></style>')
      .replace(/<script>[\s\S]*?<\/script>/, '<script></script>');
    golden('timeline.html', page);
  });
});
