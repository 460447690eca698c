/**
 * Runs in every test file under the preset: registers the matchers and attaches the
 * runtime, so config-level fixtures are live even in a file that never imports the package.
 */
import { expect } from '@jest/globals';
import { matchers } from '../matchers';
import { getRuntime, hasEnvironment } from '../src/runtime/runtime';

expect.extend(matchers);
if (hasEnvironment()) getRuntime();
