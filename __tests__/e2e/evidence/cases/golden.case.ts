import { describeGoldenTasks } from 'jest-understudy';
import { runSupportAgent } from '../../../../examples/support-agent/agent';
import { OrderStore } from '../../../../examples/support-agent/tools';

describeGoldenTasks('support.golden.yaml', {
  agent: (input: string) => runSupportAgent(input, { store: new OrderStore() }),
});
