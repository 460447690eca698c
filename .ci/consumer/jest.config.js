module.exports = {
  preset: 'jest-understudy',
  testEnvironmentOptions: { understudy: { fixtures: ['shared.fixture.json'] } },
};
