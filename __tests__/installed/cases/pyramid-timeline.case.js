/**
 * Timeline cases: a successful tool call over a failed, overridden operation, and a golden
 * task whose forbidden order the agent breaks. Both fail, so both write a timeline.
 * @understudy-world ./pyramid.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const { understudy, script, describeGoldenTasks } = require('jest-understudy');
const { agent } = require('./pyramid-agent');

it('pages once the pager is free', async () => {
  understudy.model.use(
    script()
      .user('page the on-call')
      .callsTool('page_oncall', { id: 'p-1', text: 'late' })
      .callsTool('page_oncall', { id: 'p-1', text: 'late' })
      .replies('paged'),
  );
  const run = await understudy.run(() => agent('page the on-call'));
  // Fails on purpose, so the trace and timeline are written.
  expect(run).toHaveFinalMessage('nobody answered');
});

describeGoldenTasks('pyramid.golden.yaml', {
  agent: (input) => {
    understudy.model.use(
      script()
        .user(input)
        .callsTool('page_oncall', { id: 'p-2', text: 'x' })
        .callsTool('lookup_order', { id: 'A-1' })
        .replies('done'),
    );
    return agent(input);
  },
});
