/**
 * @understudy-world ./store.world.yaml
 */
// The world from an installed package: a world file, mockTool and an HTTP route served by it.
const { describe, expect, it } = require('@jest/globals');
const { understudy, mockTool, ToolMockError } = require('jest-understudy');

describe('the world from an installed jest-understudy', () => {
  it('serves one operation directly (mockTool) and over HTTP, with shared evidence', async () => {
    const getItem = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: { packageId: 'store', operationId: 'items.get' },
      input: (id) => ({ id }),
    });
    await expect(getItem('item-1')).resolves.toMatchObject({ name: 'Trail backpack' });
    await expect(getItem('item-404')).rejects.toBeInstanceOf(ToolMockError);
    const res = await fetch('https://store.consumer.test/items/item-1');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ price: 8900 });
    expect(understudy.world.operations.map((o) => o.transport)).toEqual(['direct', 'direct', 'http']);
  });
});
