/**
 * The order of a child Jest's files from source: as in its first run (largest file first), never
 * from the durations and failures of earlier runs. Every such child shares one config id (for the
 * transform cache, ./child-jest.ts), and Jest keeps that record under it, so without this one
 * child's order would depend on what other children ran before, and on how loaded the machine was.
 */
const Sequencer = require('@jest/test-sequencer').default;

module.exports = class FirstRunSequencer extends Sequencer {
  _getCache() {
    return {};
  }
};
