// Run without the preset and without jest-understudy's environment.
const { it } = require('./runner-globals.cjs');
const { understudy, script } = require('jest-understudy');

it('uses understudy without the environment', () => {
  understudy.model.use(script().user('hi').replies('hello'));
});
