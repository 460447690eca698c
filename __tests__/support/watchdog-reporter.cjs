'use strict';
/**
 * A Jest reporter for this repository's suite: a test file still running after STUCK_AFTER_S is
 * named on stderr, with the process tree (the child Jest, npm, Chromium or agent it waits on), and
 * again every REPEAT_S. Jest itself prints a file only when it ends, so a hung file would
 * otherwise leave no trace in a CI log that stops at the job's time limit.
 */
const { execFileSync } = require('node:child_process');

const STUCK_AFTER_S = 240;
const REPEAT_S = 300;

class WatchdogReporter {
  constructor() {
    this.running = new Map();
    this.timer = undefined;
  }

  onTestFileStart(test) {
    this.running.set(test.path, { started: Date.now(), said: 0 });
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), 15_000);
      this.timer.unref();
    }
  }

  onTestFileResult(test) {
    this.running.delete(test.path);
  }

  onRunComplete() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  check() {
    const now = Date.now();
    const stuck = [];
    for (const [path, file] of this.running) {
      const seconds = Math.round((now - file.started) / 1000);
      if (seconds < STUCK_AFTER_S || now - file.said < REPEAT_S * 1000) continue;
      file.said = now;
      stuck.push(`${path} (${seconds} s)`);
    }
    if (stuck.length === 0) return;
    process.stderr.write(
      `\n[suite watchdog] still running: ${stuck.join(', ')}\n${processTree(process.pid)}\n`,
    );
  }
}

/** This Jest's own processes (workers, what they started), from `ps`: nothing of other processes. */
function processTree(root) {
  let rows;
  try {
    rows = execFileSync('ps', ['-eo', 'pid=,ppid=,etime=,args='], { encoding: 'utf8', timeout: 10_000 })
      .split('\n')
      .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
      .filter(Boolean)
      .map(([, pid, ppid, elapsed, args]) => ({ pid: Number(pid), ppid: Number(ppid), elapsed, args }));
  } catch (error) {
    return `(ps failed: ${error.message})`;
  }
  const lines = [];
  const walk = (pid, depth) => {
    for (const row of rows.filter((r) => r.ppid === pid)) {
      lines.push(`${'  '.repeat(depth)}${row.pid} ${row.elapsed} ${row.args.slice(0, 200)}`);
      walk(row.pid, depth + 1);
    }
  };
  walk(root, 0);
  return lines.join('\n');
}

module.exports = WatchdogReporter;
