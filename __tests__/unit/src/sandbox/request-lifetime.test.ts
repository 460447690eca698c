/**
 * What the model path makes for each request must die young. V8 keeps the accessor of an object
 * literal, and everything its closure holds, alive until its next full collection: a getter made
 * per request (`{ get signal() { … } }`) turned every served request, with its node:http request
 * and response, into young-generation survivors, and each scavenge of the test's process copied
 * them (bench/NOTES.md, "Per-request getters"). Each case makes many of one kind, forces two
 * young-generation collections (a survivor of both is promoted), and weighs what was promoted.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { createClock } from '../../../../src/clock';
import { ProviderRouter } from '../../../../src/providers/registry';
import { servedRequestOf } from '../../../../src/sandbox/serve-port';
import { streamAnswer } from '../../../../src/sandbox/wire';

/** Bytes promoted per item above which something made for one request outlived it (nothing here keeps any). */
const LIMIT = 150;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' }) => void;

/** Bytes outside the young generation. */
const promotedSpace = () =>
  getHeapSpaceStatistics()
    .filter((s) => s.space_name !== 'new_space')
    .reduce((sum, s) => sum + s.space_used_size, 0);

/** Bytes promoted per item while `make` makes `count` of them (each dropped once made). */
async function promotedPer(count: number, make: (i: number) => unknown | Promise<unknown>): Promise<number> {
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  const before = promotedSpace();
  for (let i = 0; i < count; i++) await make(i);
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  return (promotedSpace() - before) / count;
}

describe('objects made per request die young', () => {
  it("the router's targets, their query read", async () => {
    const router = new ProviderRouter();
    const per = await promotedPer(5000, (i) => {
      const target = router.route(`https://api.openai.com/v1/chat/completions?n=${i}`, 'POST');
      return target?.query.get('n');
    });
    // As an object literal with a getter: about 570 bytes apiece.
    expect(per).toBeLessThan(LIMIT);
  });

  it('the plan of a streamed answer, its signal read', async () => {
    const events = ['data: {"a":1}\n\n', 'data: [DONE]\n\n'];
    const signal = new AbortController().signal;
    const clock = createClock(1);
    const per = await promotedPer(5000, () => {
      const answer = streamAnswer({ status: 200, headers: {}, events: [...events] }, {}, clock, { signal });
      return answer.kind === 'stream' ? answer.plan.signal() : undefined;
    });
    // With a getter beside its methods: about 450 bytes apiece.
    expect(per).toBeLessThan(LIMIT);
  });

  it("the served port's requests, their signal read", async () => {
    const per = await promotedPer(5000, (i) => {
      // What each request holds: its node:http request and response (their own data stands in).
      const req = {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: {},
        data: new Array(32).fill(i),
      };
      const res = { closed: false, writableFinished: false, once: () => res, data: new Array(32).fill(i) };
      const request = servedRequestOf(req as never, res as never, 'http://127.0.0.1:1');
      return [request.method, request.signal.aborted];
    });
    // As an object literal with a getter, each kept its request and response: about 1,200 bytes apiece.
    expect(per).toBeLessThan(LIMIT);
  });
});
