// The consumer's Vitest side: the plugin from the installed tarball, its own test files.
import understudy from 'jest-understudy/vitest';
import { defineConfig } from 'vitest/config';

export default defineConfig({ plugins: [understudy()], test: { include: ['*.vitest.test.mjs'] } });
