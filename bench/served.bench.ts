/**
 * A replayed model call through the served port (`understudy.serve()`) from a child Node process,
 * against aimock over loopback serving the same reply (bench/served-client.mjs times both). Run by
 * bench/run.mjs; writes the raw samples to $UNDERSTUDY_BENCH_OUT.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import driver from './driver.cjs';

const plan = JSON.parse(process.env.UNDERSTUDY_BENCH_PLAN ?? JSON.stringify(driver.DEFAULT_PLAN));

function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args[0]} exited ${code}`))));
  });
}

it('times the served port against aimock from a child process', async () => {
  understudy.model.use(driver.understudyFixtures());
  const served = await understudy.serve();
  const aimock = spawn(process.execPath, [join(__dirname, 'aimock-server.mjs')], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  try {
    const first = await createInterface({ input: aimock.stdout! })[Symbol.asyncIterator]().next();
    const origin = String(first.value);
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const out = process.env.UNDERSTUDY_BENCH_OUT ?? join(__dirname, 'served.json');
    // The client's SDK appends /v1 to the origin it is given.
    await run([
      join(__dirname, 'served-client.mjs'),
      `${served.urls.base}/openai`,
      origin,
      JSON.stringify(plan),
      out,
    ]);
  } finally {
    aimock.stdin!.end();
  }
  expect(understudy.model.calls.every((c) => !c.unmatched)).toBe(true);
}, 600_000);
