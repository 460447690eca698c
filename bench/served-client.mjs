/**
 * The child process of the served-port bench: the openai SDK in a plain Node process, pointed in
 * turn at jest-understudy's served port (`understudy.serve()`, in the Jest process that started
 * this one) and at aimock (in a process of its own), both over 127.0.0.1, serving the same replies.
 * Every target must return the same summary before it is timed; all variants and targets are timed
 * in one loop, alternating call by call.
 *
 *   node bench/served-client.mjs <served openai origin> <aimock origin> <plan.json> <output.json>
 */
import { deepStrictEqual } from 'node:assert';
import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import driver from './driver.cjs';

const { VARIANTS, createClient, makeCall, measure, summarize } = driver;
const [served, aimock, planJson, outputPath] = process.argv.slice(2);
const plan = JSON.parse(planJson);
const origins = { served, aimock };
// Chat Completions, plain and streamed: what a child agent on the openai SDK sends.
const variants = VARIANTS.filter((v) => v.protocol === 'chat');
// Every variant's calls to both targets, timed interleaved in one loop: timed variant by variant,
// the order they came in moved a row's ratio by up to 5% (bench/NOTES.md, phase 6).
const targets = {};
for (const variant of variants) {
  let expected;
  for (const [name, origin] of Object.entries(origins)) {
    const client = createClient('chat', { OpenAI }, { origin });
    const summary = await summarize(client, variant);
    expected ??= summary;
    deepStrictEqual(summary, expected, `${name} ${variant.id}`);
    targets[`${variant.id}\0${name}`] = makeCall(client, variant);
  }
}
await measure(targets, { warmup: plan.prewarm ?? plan.warmup, calls: 0 });
const m = await measure(targets, plan);
const samples = Object.fromEntries(variants.map((v) => [v.id, {}]));
const cpu = Object.fromEntries(variants.map((v) => [v.id, {}]));
for (const key of Object.keys(targets)) {
  const [id, name] = key.split('\0');
  samples[id][name] = m.wall[key];
  cpu[id][name] = m.cpu[key];
}
writeFileSync(outputPath, JSON.stringify({ samples, cpu }));
