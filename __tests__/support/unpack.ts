/** Jest globalTeardown of the e2e tier: removes the folders this run made in the consumer project (./pack.ts). */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export default function removeRuns(): void {
  const prefix = process.env.UNDERSTUDY_INSTALLED_RUNS;
  if (!prefix || process.env.UNDERSTUDY_KEEP_INSTALLED) return;
  const runs = dirname(prefix);
  if (!existsSync(runs)) return;
  for (const name of readdirSync(runs))
    if (name.startsWith(`${basename(prefix)}-`)) rmSync(join(runs, name), { recursive: true, force: true });
}
