/**
 * acrossProviders from the installed package: one test body per protocol, the runs compared.
 */
const { expect, it } = require('./runner-globals.cjs');
const { script, understudy } = require('jest-understudy');
const { loopFor } = require('./pyramid-runs-agent');

const PROTOCOLS = ['openai.chat', 'openai.responses'];
const flow = () =>
  script()
    .user('Rollback deploy v2.4.1')
    .callsTool('get_deploy', { version: 'v2.4.1' })
    .callsTool('rollback', { version: 'v2.4.1' })
    .replies('Rolled back v2.4.1.');

const tools = (log) => ({
  async get_deploy(args) {
    log.push('get_deploy');
    return { ...args, healthy: false };
  },
  async rollback(args) {
    log.push('rollback');
    return { rolledBack: args.version };
  },
});

it('runs the body once per protocol and finds the same trajectory', async () => {
  understudy.model.use(flow());
  const matrix = await understudy.acrossProviders(
    async ({ protocol, provider }) => {
      expect(provider).toBe('openai');
      const run = await understudy.run(() =>
        loopFor(protocol)({ user: 'Rollback deploy v2.4.1', tools: tools([]) }),
      );
      expect(run.toolsCalled).toEqual(['get_deploy', 'rollback']);
      return run;
    },
    { protocols: PROTOCOLS },
  );
  expect(matrix.consistent).toBe(true);
  expect(matrix.results.map((r) => [r.protocol, r.finalMessage])).toEqual([
    ['openai.chat', 'Rolled back v2.4.1.'],
    ['openai.responses', 'Rolled back v2.4.1.'],
  ]);
});

it('no false green: a body that fails on one protocol fails the test', async () => {
  understudy.model.use(flow());
  await understudy.acrossProviders(
    async ({ protocol }) => {
      const log = [];
      await understudy.run(() => loopFor(protocol)({ user: 'Rollback deploy v2.4.1', tools: tools(log) }));
      // On Responses this agent's rollback is never logged: the check must catch it.
      if (protocol === 'openai.responses') log.pop();
      expect(log).toEqual(['get_deploy', 'rollback']);
    },
    { protocols: PROTOCOLS },
  );
});

it('refuses an unknown protocol, naming it', async () => {
  await expect(
    understudy.acrossProviders(async () => {}, { protocols: ['openai.chat', 'carrier.pigeon'] }),
  ).rejects.toThrow('understudy.acrossProviders(): unknown protocol "carrier.pigeon"');
});
