'use strict';
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Bench-only: runs the start-up projects' files alternately (node, understudy, node, ...), so a
 * change in the machine's load during the run lands on both environments alike.
 */
class AlternatingSequencer extends Sequencer {
  sort(tests) {
    const byProject = new Map();
    for (const test of [...tests].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
      const name = test.context.config.displayName?.name ?? '';
      if (!byProject.has(name)) byProject.set(name, []);
      byProject.get(name).push(test);
    }
    const queues = [...byProject.values()];
    const out = [];
    for (let i = 0; out.length < tests.length; i++) for (const q of queues) if (i < q.length) out.push(q[i]);
    return out;
  }
}

module.exports = AlternatingSequencer;
