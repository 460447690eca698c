module.exports = {
  preset: 'jest-understudy',
  testEnvironmentOptions: { understudy: { fixtures: ['shared.fixture.json'] } },
  // The Vitest side's test files (vitest.config.mjs) are not Jest's.
  testPathIgnorePatterns: ['/node_modules/', '\\.vitest\\.test\\.mjs$'],
};
