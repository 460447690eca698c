/**
 * Tool names in assertions: a forbidden name that no request offers and no world declares, but
 * that is close to one that is, fails as a probable typo (a misspelt forbidden name forbids
 * nothing); and "did you mean" never suggests the name that was asked for.
 * @understudy-world ./truthful.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const { script, understudy } = require('jest-understudy');
const { anthropicAgent, openaiAgent } = require('./truthful-agents');

const closeAccount = (agent) => {
  understudy.model.use(
    script().user('close my account').callsTool('delete_account', { id: 'u-1' }).replies('Closed.'),
  );
  return understudy.run(() => agent('Please close my account'));
};

it('no false green: toNeverCallTools with a misspelt name, while the agent ran the real tool', async () => {
  const run = await closeAccount(openaiAgent);
  expect(run).toNeverCallTools(['delete_acount']);
});

it('no false green: the same on Anthropic, streamed', async () => {
  const run = await closeAccount((text) => anthropicAgent(text, { stream: true }));
  expect(run).toNeverCallTools(['Delete_Account']);
});

it('no false green: not.toHaveCalledTool with a misspelt name', async () => {
  const run = await closeAccount(openaiAgent);
  expect(run).not.toHaveCalledTool('delete_acount');
});

it('no false green: a misspelt name of a tool only the world declares', async () => {
  understudy.model.use(script().user('weather').callsTool('get_weather', { city: 'Paris' }).replies('18 C'));
  const run = await understudy.run(() => openaiAgent('weather in Paris?'));
  expect(run).toNeverCallTools(['wipe_backup']);
});

it('the real name is forbidden as written', async () => {
  const run = await closeAccount(openaiAgent);
  expect(run).toNeverCallTools(['delete_account']);
});

it('a name close to nothing the run knows is simply never called', async () => {
  const run = await closeAccount(openaiAgent);
  expect(run).toNeverCallTools(['transfer_funds', 'wipe_backups']);
  expect(run).toHaveCalledTool('delete_account', { id: 'u-1' });
});

it('did you mean: an offered tool the model never asked for is not suggested as itself', async () => {
  understudy.model.use(script().user('weather').callsTool('get_weather', { city: 'Paris' }).replies('18 C'));
  const run = await understudy.run(() => openaiAgent('weather in Paris?'));
  expect(run).toHaveCalledToolSequence(['get_weather', 'lookup_account']);
});
