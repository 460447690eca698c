/**
 * Loaded with `--require` into every worker thread a test starts: installs the guards with a
 * policy that passes loopback and refuses the rest (the worker has no mock model or world), and
 * reports each refusal to the test's thread, waiting for its acknowledgement before the caller
 * sees the error.
 */
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { blockedMessage, createPolicy, loopbackRule } from './policy';
import { containThread } from './thread';
import { preloadArgs, reportChannel } from './workers';

const WORKER_NOTE =
  "\n  This ran in a worker thread: jest-understudy serves model providers and world hosts only on the test file's own thread.";

const channel = new BroadcastChannel(reportChannel());
channel.unref();
const pending = new Map<string, () => void>();
let reports = 0;
channel.onmessage = (event) => {
  const ack = ((event as { data?: unknown }).data as { ack?: unknown } | undefined)?.ack;
  const done = typeof ack === 'string' ? pending.get(ack) : undefined;
  if (!done) return;
  pending.delete(ack as string);
  if (pending.size === 0) channel.unref();
  done();
};

/** Resolves when the test's thread has the failure (or after a while, if that thread has gone). */
function report(message: string): Promise<void> {
  const id = `${threadId}:${++reports}`;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    channel.ref();
    channel.postMessage({ id, message });
    setTimeout(() => {
      if (pending.delete(id) && pending.size === 0) channel.unref();
      resolve();
    }, 5000).unref();
  });
}

const policy = createPolicy([loopbackRule], (target) => blockedMessage(target) + WORKER_NOTE);
containThread({
  decide: policy.decide,
  refused: report,
  label: (transport) => `worker ${transport}`,
  realm: globalThis,
  fetchTransport: 'worker fetch',
  preload: preloadArgs(),
});
