/**
 * `understudy tool call` as a process, from source, against this test file's served port: the
 * output on stdout, a failed operation's envelope on stderr, and each exit code.
 *
 * @understudy-world ../../../examples/python-agent/orders.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type Served, understudy } from 'jest-understudy';
import { runChild } from '../../../examples/support/child';
import { SOURCE_CLI } from '../../support/source';

const root = resolve(__dirname, '..', '..', '..');
const CLI = SOURCE_CLI;

function tool(args: string[], env: Record<string, string>) {
  return runChild(process.execPath, [...CLI, 'tool', 'call', ...args], {
    env: { NODE_OPTIONS: '', ...env },
    cwd: root,
  });
}

let served: Served;
beforeAll(async () => {
  served = await understudy.serve();
});

// Each test spawns the CLI from source (esbuild-register) once or more: seconds on a loaded machine.
jest.setTimeout(60_000);

describe('understudy tool call', () => {
  it('prints the output as JSON and exits 0; the call is a world operation of the run', async () => {
    const run = await understudy.run(() =>
      tool(
        ['orders/orders.refund', '--json', '{"id":"A-1001","amount":89}', '--idempotency-key', 'r-1'],
        served.env,
      ),
    );
    expect(run.output).toEqual({ code: 0, stdout: '{"id":"A-1001","amount":89}\n', stderr: '' });
    expect(run.operations.map((op) => [op.transport, op.operationId, op.idempotencyKey])).toEqual([
      ['cli', 'orders.refund', 'r-1'],
    ]);
    expect(understudy.world.state.orders.refunds).toEqual({ 'A-1001': { id: 'A-1001', amount: 89 } });
  });

  it('exits 1 with the envelope on stderr for a failed operation, and --actor is the caller', async () => {
    const denied = await tool(
      ['orders/orders.refund', '--json', '{"id":"A-1001","amount":89}', '--actor', 'intern'],
      served.env,
    );
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe('');
    expect(JSON.parse(denied.stderr)).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'actor "intern" may not call orders/orders.refund',
      status: 403,
    });
    const missing = await tool(['orders/orders.get', '--json', '{"id":"B-2"}'], served.env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(understudy.world.operations.map((op) => op.actorId)).toEqual(['intern', 'support-agent']);
  });

  it('exits 2 for bad usage, naming the argument', async () => {
    const badJson = await tool(['orders/orders.get', '--json', '{id:1}'], served.env);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('understudy tool call: --json is not valid JSON');
    const badName = await tool(['orders.get'], served.env);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain(
      'expected <packageId>/<operationId> (e.g. orders/orders.get), got "orders.get"',
    );
    expect(understudy.world.operations).toEqual([]);
  });

  it('exits 3 without a served port', async () => {
    const unset = await tool(['orders/orders.get', '--json', '{"id":"A-1001"}'], {
      UNDERSTUDY_SERVE_URL: '',
    });
    expect(unset.code).toBe(3);
    expect(unset.stderr).toContain('UNDERSTUDY_SERVE_URL is not set');
    const gone = await understudy.serve().then(async (s) => {
      const { base } = s.urls;
      await s.close();
      return tool(['orders/orders.get', '--json', '{"id":"A-1001"}'], { UNDERSTUDY_SERVE_URL: base });
    });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('cannot reach the served port at http://127.0.0.1:');
    served = await understudy.serve();
  });
});
