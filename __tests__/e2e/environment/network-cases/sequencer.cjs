// Runs the case files in the order of their names.
const Sequencer = require('@jest/test-sequencer').default;

module.exports = class ByName extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => a.path.localeCompare(b.path));
  }
};
