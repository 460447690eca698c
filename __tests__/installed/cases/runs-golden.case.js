// Golden tasks: a task that declares the terminal state accepts a crash; one that does not fails once.
const { describeGoldenTasks } = require('jest-understudy');

describeGoldenTasks('runs-golden.golden.yaml', {
  agent: async () => {
    throw new Error('the golden agent crashed');
  },
});
