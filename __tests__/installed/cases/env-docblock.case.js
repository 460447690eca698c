/**
 * The preset is set, but this docblock replaces its environment.
 * @jest-environment node
 */
const { it } = require('./runner-globals.cjs');
const { understudy, script } = require('jest-understudy');

it('uses understudy under another environment', () => {
  understudy.model.use(script().user('hi').replies('hello'));
});
