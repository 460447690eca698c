'use strict';
const { writeFileSync } = require('node:fs');

/**
 * Bench-only Jest reporter: writes each test file's project and Jest's own per-file timings
 * (perfStats) to $UNDERSTUDY_BENCH_STARTUP_OUT, for the end-to-end start-up figures.
 */
class StartupReporter {
  constructor() {
    this.files = [];
  }

  onTestResult(test, result) {
    const name = test.context.config.displayName;
    this.files.push({
      project: typeof name === 'object' && name ? name.name : name,
      path: result.testFilePath,
      failed: result.numFailingTests > 0 || Boolean(result.testExecError),
      perfStats: result.perfStats,
    });
  }

  onRunComplete() {
    const out = process.env.UNDERSTUDY_BENCH_STARTUP_OUT;
    if (out) writeFileSync(out, JSON.stringify({ files: this.files }));
  }
}

module.exports = StartupReporter;
