/**
 * One of two files run at once in two workers (see ../serve-parallel.test.ts): each serves its
 * own model on its own port, and waits until the other is serving too, so both ports are open
 * together.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { runChild } from '../../../examples/support/child';

const CHILD = join(__dirname, '..', 'child-agent.cjs');
const ME = 'a';
const OTHER = 'b';

it('answers its own child from its own port while the other file serves', async () => {
  const dir = process.env.SERVE_PARALLEL_DIR as string;
  const served = await understudy.serve();
  understudy.model.use([{ match: { userMessage: 'which file?' }, response: { content: 'file A' } }]);
  writeFileSync(join(dir, `${ME}.json`), JSON.stringify({ base: served.urls.base, pid: process.pid }));
  const deadline = Date.now() + 20_000;
  while (!existsSync(join(dir, `${OTHER}.json`)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(existsSync(join(dir, `${OTHER}.json`))).toBe(true);
  const run = await understudy.run(() =>
    runChild(process.execPath, [CHILD, 'ask', 'which file?'], { env: served.env }),
  );
  expect(run.output?.stdout).toBe('file A\n');
  expect(run.modelCalls).toHaveLength(1);
  // Still open when the other file is done with its own: each waits for the other's result.
  writeFileSync(join(dir, `${ME}.done`), '');
  while (!existsSync(join(dir, `${OTHER}.done`)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}, 60_000);
