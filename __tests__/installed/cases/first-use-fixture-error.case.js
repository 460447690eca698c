// A file whose first use is a broken fixture: the fixture schema's wording (loaded on first need)
// names the field, the path and the fix, in use() and in validateFixtureFile().
const { expect, it } = require('./runner-globals.cjs');
const { understudy, validateFixtureFile } = require('jest-understudy');

it('refuses a misspelt response field, naming it and the right one', () => {
  let thrown;
  try {
    understudy.model.use([{ match: { userMessage: 'hi' }, response: { contnet: 'hello' } }]);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeDefined();
  expect(thrown.message).toContain('contnet');
  expect(thrown.message).toContain('"content"');
  expect(thrown.message).toContain('use()[0].response');
  expect(understudy.model.fixtures ?? []).toHaveLength(0);
});

it('validateFixtureFile reports the same problem as a value', () => {
  const result = validateFixtureFile(
    { fixtures: [{ match: {}, response: { contnet: 'x' } }] },
    { file: 'my.fixture.json' },
  );
  expect(result.ok).toBe(false);
  const [issue, ...rest] = result.errors;
  expect(rest).toEqual([]);
  expect(issue).toEqual({
    code: 'FIXTURE_INVALID',
    file: 'my.fixture.json',
    path: '$.fixtures[0].response.contnet',
    message: 'unknown property "contnet"',
    suggestion: 'did you mean "content"?',
  });
});

it('validateFixtureFile accepts a good file', () => {
  const result = validateFixtureFile([{ match: { userMessage: 'hi' }, response: { content: 'hello' } }]);
  expect(result.ok).toBe(true);
  expect(result.fixtures.map((f) => f.response.content)).toEqual(['hello']);
});
