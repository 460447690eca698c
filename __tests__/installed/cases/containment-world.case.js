/**
 * @understudy-world ./containment.world.yaml
 */
// A world host is served whichever client reaches it, as provider hosts are. Must pass.
const { expect, it } = require('./runner-globals.cjs');
const http2 = require('node:http2');
const undici = require('undici');
const { understudy } = require('jest-understudy');

const URL = 'https://store.invalid/items/item-1';

it('serves a world host to undici.fetch, undici.request, an explicit Agent and http2', async () => {
  const agent = new undici.Agent();
  const bodies = [
    await (await undici.fetch(URL)).json(),
    await (await undici.request(URL)).body.json(),
    await (await undici.fetch(URL, { dispatcher: agent })).json(),
    await new Promise((resolve, reject) => {
      const session = http2.connect('https://store.invalid');
      const stream = session.request({ ':path': '/items/item-1' });
      let data = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        data += chunk;
      });
      stream.on('end', () => {
        session.close();
        resolve(JSON.parse(data));
      });
      stream.on('error', reject);
    }),
  ];
  await agent.close();
  expect(bodies.map((b) => b.name)).toEqual([
    'Trail backpack',
    'Trail backpack',
    'Trail backpack',
    'Trail backpack',
  ]);
  expect(understudy.world.operations.map((o) => o.transport)).toEqual(['http', 'http', 'http', 'http']);
});
