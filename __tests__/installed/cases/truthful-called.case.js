/**
 * "Called" means the agent ran the call: it sent a result back, or the world served it. An agent
 * that returns without running the tools the model asked for fails the called matchers, on every
 * protocol, streamed or not, in process and over the served port; the model's request itself is
 * asserted with the requested matchers.
 * @understudy-world ./truthful.world.yaml
 */
const { beforeAll, describe, expect, it } = require('./runner-globals.cjs');
const { script, understudy } = require('jest-understudy');
const { anthropicAgent, openaiAgent } = require('./truthful-agents');

let served;
beforeAll(async () => {
  served = await understudy.serve();
});

const ASK = 'What is the weather in Paris?';
const weather = () =>
  understudy.model.use(
    script().user('weather in Paris').callsTool('get_weather', { city: 'Paris' }).replies('18 C in Paris'),
  );

const AGENTS = {
  'openai chat': (policy) => openaiAgent(ASK, { policy }),
  'openai chat streamed': (policy) => openaiAgent(ASK, { policy, stream: true }),
  'openai chat over the served port': (policy) => openaiAgent(ASK, { policy, baseURL: served.urls.openai }),
  'anthropic messages': (policy) => anthropicAgent(ASK, { policy }),
  'anthropic messages streamed': (policy) => anthropicAgent(ASK, { policy, stream: true }),
};

describe.each(Object.entries(AGENTS))('%s', (_, agent) => {
  it('no false green: toHaveCalledTool fails when the agent never ran the call', async () => {
    weather();
    const run = await understudy.run(() => agent('drop'));
    expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  });

  it('no false green: toHaveCalledToolSequence fails when the agent never ran the call', async () => {
    weather();
    const run = await understudy.run(() => agent('drop'));
    expect(run).toHaveCalledToolSequence(['get_weather']);
  });

  it('the request is asserted with toHaveRequestedTool; toolsCalled lists only what ran', async () => {
    weather();
    const run = await understudy.run(() => agent('drop'));
    expect(run).toHaveRequestedTool('get_weather', { city: 'Paris' });
    expect(run).toHaveRequestedToolSequence([{ name: 'get_weather', args: { city: 'Paris' } }]);
    expect(run).not.toHaveCalledTool('get_weather');
    expect(run.toolsCalled).toEqual([]);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['get_weather']);
  });

  it('an agent that ran the call and sent the result back passes', async () => {
    weather();
    const run = await understudy.run(() => agent('run'));
    expect(run).toHaveCalledTool('get_weather', { city: 'Paris' }, { outcome: 'ok' });
    expect(run).toHaveCalledToolSequence(['get_weather']);
    expect(run.toolsCalled).toEqual(['get_weather']);
    expect(run).toHaveFinalMessage('18 C');
  });

  it('a call the world served is called, though no result went back to the model', async () => {
    weather();
    const run = await understudy.run(() => agent('run-and-stop'));
    expect(run).toHaveCalledTool('get_weather', { city: 'Paris' }, { outcome: 'ok' });
    expect(run.toolsCalled).toEqual(['get_weather']);
  });
});

it('a guard that stops before a destructive call: requested, never called, nothing deleted', async () => {
  understudy.model.use(
    script().user('close my account').callsTool('delete_account', { id: 'u-1' }).replies('Closed.'),
  );
  const run = await understudy.run(() => openaiAgent('Please close my account', { policy: 'drop' }));
  expect(run).toHaveRequestedTool('delete_account', { id: 'u-1' });
  expect(run).not.toHaveCalledTool('delete_account');
  expect(run).toNeverCallTools(['delete_account']);
  expect(understudy.world.state.accounts.accounts['u-1']).toEqual({ id: 'u-1', name: 'Kim' });
});

it('no false green: an argument expectation refuses a call whose arguments were cut', () => {
  // A tool call whose arguments never completed on the wire (`incomplete`, set by the evidence).
  const run = {
    terminalState: 'failed',
    toolCalls: [
      {
        id: 'c0',
        name: 'transfer',
        arguments: { to: 'alice', amount: 100 },
        answered: true,
        incomplete: true,
      },
    ],
  };
  expect(run).toHaveCalledTool('transfer');
  expect(run).toHaveCalledTool('transfer', { to: 'alice', amount: 100 });
});
