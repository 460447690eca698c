/**
 * The test of each of the two files run at once in two workers (see ../serve-parallel.test.ts):
 * it serves its own model on its own port, and waits until the other file is serving too, so
 * both ports are open together.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { runChild } from '../../../../examples/support/child';

const CHILD = join(__dirname, '..', 'child-agent.cjs');

export function servesAlongside(me: string, other: string): void {
  it('answers its own child from its own port while the other file serves', async () => {
    const dir = process.env.SERVE_PARALLEL_DIR as string;
    const served = await understudy.serve();
    understudy.model.use([{ match: { userMessage: 'which file?' }, response: { content: `file ${me}` } }]);
    writeFileSync(join(dir, `${me}.json`), JSON.stringify({ base: served.urls.base, pid: process.pid }));
    const deadline = Date.now() + 20_000;
    const waitFor = async (file: string) => {
      while (!existsSync(join(dir, file)) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await waitFor(`${other}.json`);
    expect(existsSync(join(dir, `${other}.json`))).toBe(true);
    const run = await understudy.run(() =>
      runChild(process.execPath, [CHILD, 'ask', 'which file?'], { env: served.env }),
    );
    expect(run.output?.stdout).toBe(`file ${me}\n`);
    expect(run.modelCalls).toHaveLength(1);
    // Still open until the other file has had its own answer.
    writeFileSync(join(dir, `${me}.done`), '');
    await waitFor(`${other}.done`);
  }, 60_000);
}
