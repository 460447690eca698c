/**
 * A replayed model call through the served port (`understudy.serve()`) from a child Node process,
 * against aimock over loopback serving the same reply (bench/served-client.mjs times both). Run by
 * bench/run.mjs; writes the raw samples to $UNDERSTUDY_BENCH_OUT.
 *
 * Then the servers' own cost, apart from the process each runs in: aimock started in this Jest
 * process beside the served port, both called by a client that costs next to nothing
 * (bench/raw-client.cjs), in rounds that alternate (`sameProcess` in the output). A diagnostic:
 * it has no target of its own.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import driver from './driver.cjs';
import rawClient from './raw-client.cjs';

const plan = JSON.parse(process.env.UNDERSTUDY_BENCH_PLAN ?? JSON.stringify(driver.DEFAULT_PLAN));
const out = process.env.UNDERSTUDY_BENCH_OUT ?? join(__dirname, 'served.json');

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

it("times the two servers' own cost in one process, with a client that costs next to nothing", async () => {
  understudy.model.use(driver.understudyFixtures());
  const served = await understudy.serve();
  const { LLMock } = await import('@copilotkit/aimock');
  const mock = new LLMock({ port: 0, host: '127.0.0.1', logLevel: 'silent' });
  for (const { key, response } of Object.values(driver.REPLIES) as Array<{ key: string; response: object }>)
    mock.onMessage(key, response);
  await mock.start();
  const targets = {
    served: { port: Number(new URL(served.urls.base).port), path: '/openai/v1/chat/completions' },
    aimock: { port: Number(new URL(mock.url).port), path: '/v1/chat/completions' },
  };
  const rounds = Math.max(4, Math.round(plan.calls / 25));
  const perRound = 100;
  const sameProcess: Record<string, { served: number[]; aimock: number[] }> = {};
  try {
    for (const variant of driver.VARIANTS.filter((v: { protocol: string }) => v.protocol === 'chat')) {
      const clients = Object.fromEntries(
        Object.entries(targets).map(([name, { port, path }]) => {
          const client = rawClient.connect(port);
          return [name, { client, bytes: rawClient.requestBytes(`127.0.0.1:${port}`, path, variant) }];
        }),
      );
      for (const { client, bytes } of Object.values(clients)) {
        await client.ready;
        const { head } = await client.call(bytes);
        // Both answer the variant's reply (the body differs: each server has its own ids and fields).
        expect(head).toMatch(/^HTTP\/1\.1 200 /);
        for (let i = 0; i < perRound; i++) await client.call(bytes);
      }
      const times = { served: [] as number[], aimock: [] as number[] };
      for (let round = 0; round < rounds; round++)
        for (const name of round % 2 ? (['served', 'aimock'] as const) : (['aimock', 'served'] as const)) {
          const { client, bytes } = clients[name];
          const t0 = performance.now();
          for (let i = 0; i < perRound; i++) await client.call(bytes);
          times[name].push((performance.now() - t0) / perRound);
        }
      for (const { client } of Object.values(clients)) client.close();
      sameProcess[variant.id] = times;
    }
  } finally {
    await mock.stop();
  }
  writeFileSync(out, JSON.stringify({ ...JSON.parse(readFileSync(out, 'utf8')), sameProcess }));
  expect(understudy.model.calls.every((c) => !c.unmatched)).toBe(true);
}, 600_000);
