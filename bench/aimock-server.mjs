/**
 * aimock on 127.0.0.1 in a process of its own, serving the bench's two replies (bench/driver.cjs),
 * for bench/served.bench.ts: prints its origin on the first line of stdout, stops when stdin ends.
 */
import { LLMock } from '@copilotkit/aimock';
import driver from './driver.cjs';

const mock = new LLMock({ port: 0, host: '127.0.0.1', logLevel: 'silent' });
for (const { key, response } of Object.values(driver.REPLIES)) mock.onMessage(key, response);
await mock.start();
process.stdout.write(`${mock.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => mock.stop().then(() => process.exit(0)));
