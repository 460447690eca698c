/**
 * Jest globalSetup of the installed-package suites: the package packed and installed (./pack.ts),
 * then the case projects the selected drivers share, run (./shared-runs.ts).
 */
import type { Config } from '@jest/types';
import packAndInstall from './pack';
import { runSharedProjects } from './shared-runs';

export default async function installedSetup(config: Config.GlobalConfig): Promise<void> {
  packAndInstall();
  await runSharedProjects(config);
}
