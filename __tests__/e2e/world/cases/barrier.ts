import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = () => process.env.WORLD_CASES_DIR as string;

/** Notes which Jest worker ran this file. */
export function reportWorker(me: string): void {
  writeFileSync(join(dir(), `worker-${me}`), String(process.env.JEST_WORKER_ID));
}

/** Waits until both writers have arrived (they run at the same time in two workers). */
export async function arrive(me: string): Promise<void> {
  writeFileSync(join(dir(), `arrived-${me}`), '');
  const deadline = Date.now() + 20_000;
  while (!(existsSync(join(dir(), 'arrived-a')) && existsSync(join(dir(), 'arrived-b')))) {
    if (Date.now() > deadline)
      throw new Error('the other writer never arrived: the files did not run in parallel');
    await new Promise((r) => setTimeout(r, 10));
  }
}
