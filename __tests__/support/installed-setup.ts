/**
 * Jest globalSetup of the installed-package suites: the package packed and installed
 * (./pack.ts).
 */
import packAndInstall from './pack';

export default function installedSetup(): void {
  packAndInstall();
}
