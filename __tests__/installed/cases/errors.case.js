// Errors of the installed package carry their codes: what a test can catch (isUnderstudyError and
// the error classes from the package entry), and the failure the environment adds when a test ends.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const {
  FileIssuesError,
  FixtureFileError,
  isUnderstudyError,
  loadFixtures,
  script,
  UnderstudyError,
  understudy,
} = require('jest-understudy');

const thrown = (fn) => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

it('a caught error names its code, in isUnderstudyError and on the first line of its stack', () => {
  const error = thrown(() => script().user(42));
  expect(error).toBeInstanceOf(UnderstudyError);
  expect(isUnderstudyError(error, 'BAD_ARGUMENT')).toBe(true);
  expect(error.stack.split('\n')[0]).toBe(
    'UnderstudyError [BAD_ARGUMENT]: script().user(text): text must be a string or a RegExp',
  );
  const fileError = thrown(() => loadFixtures('no-such.fixture.json'));
  expect(fileError).toBeInstanceOf(FixtureFileError);
  expect(fileError).toBeInstanceOf(FileIssuesError);
  expect(isUnderstudyError(fileError, 'FIXTURE_READ_ERROR')).toBe(true);
  expect(fileError.stack.split('\n')[0]).toMatch(/^FixtureFileError \[FIXTURE_READ_ERROR\]: Fixture file /);
});

it('a matcher used wrongly throws an error coded BAD_ARGUMENT', () => {
  const error = thrown(() => expect(42).toHaveCalledTool('lookup'));
  expect(isUnderstudyError(error, 'BAD_ARGUMENT')).toBe(true);
});

it('an unmatched model request the agent swallows fails the test with MODEL_UNMATCHED', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const client = new OpenAI({ maxRetries: 0 });
  await client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'goodbye' }] })
    .catch(() => undefined);
});
