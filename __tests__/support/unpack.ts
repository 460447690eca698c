/** Jest globalTeardown: removes the consumer project ./pack.ts made (never one it was given). */
import { rmSync } from 'node:fs';

export default function removeInstalled(): void {
  const dir = process.env.UNDERSTUDY_INSTALLED_DIR;
  if (dir && process.env.UNDERSTUDY_INSTALLED_OWNED === '1' && !process.env.UNDERSTUDY_KEEP_INSTALLED)
    rmSync(dir, { recursive: true, force: true });
}
