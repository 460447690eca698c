/** Headless Chromium for the timeline page tests: the system's, with no network of its own. */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

export async function launchChromium(): Promise<Browser> {
  const executable = process.env.UNDERSTUDY_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executable))
    throw new Error(
      `Chromium is not installed at ${executable} (apt-get install -y chromium; .ci/run does it)`,
    );
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: executable,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
