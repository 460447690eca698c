/**
 * The preset is set, but this docblock replaces its environment.
 * @jest-environment node
 */
const { it } = require('@jest/globals');
const { understudy, script } = require('jest-understudy');

it('uses understudy under another environment', () => {
  understudy.model.use(script().user('hi').replies('hello'));
});
