/**
 * Writes the shared world file's record-1 over and over, while writer-b.case.ts (another
 * worker) does the same: neither may ever see the other's writes.
 *
 * @understudy-world ../../../../fixtures/worlds/records.world.yaml
 */
import { expect, it } from '@jest/globals';
import { mockTool, understudy } from 'jest-understudy';
import { arrive, reportWorker } from './barrier';

const ME: string = 'b';

it('writes its own records and sees only them', async () => {
  reportWorker(ME);
  await arrive(ME); // both files are running now, in two workers
  const save = mockTool(understudy.world.bind(), {
    mode: 'async',
    operation: { packageId: 'record-store', operationId: 'records.save' },
  });
  for (let i = 1; i <= 20; i++) {
    await save({ id: 'record-1', text: `${ME} ${i}` });
    await fetch('https://records.example.test/v1/records/shared-' + ME, {
      method: 'PUT',
      body: JSON.stringify({ text: ME }),
    });
    await new Promise((r) => setTimeout(r, 2));
  }
  if (ME === 'b') await fetch('https://records.example.test/v1/records/record-2', { method: 'DELETE' });
  const { records } = understudy.world.state['record-store'];
  expect(records['record-1']).toEqual({ id: 'record-1', text: `${ME} 20`, version: 21 });
  expect(Object.keys(records).sort()).toEqual(
    ME === 'b' ? ['record-1', 'shared-b'] : ['record-1', 'record-2', 'shared-a'],
  );
  expect(understudy.world.operations).toHaveLength(ME === 'b' ? 41 : 40);
  expect(
    understudy.world.operations.every(
      (o) => JSON.stringify(o.input).includes(ME) || o.operationId === 'records.delete',
    ),
  ).toBe(true);
});
