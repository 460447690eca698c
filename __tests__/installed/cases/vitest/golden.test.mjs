// describeGoldenTasks on Vitest's describe/it: a task that declares the terminal state accepts
// a crash; one that does not fails.
import { describeGoldenTasks } from 'jest-understudy';

describeGoldenTasks('golden.golden.yaml', {
  agent: async () => {
    throw new Error('the golden agent crashed');
  },
});
