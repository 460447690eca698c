/**
 * Loaded with `--require` into every worker thread a test starts: installs the guards with the
 * test's policy but for serving (the worker has no mock model or world): loopback ports a server
 * of the process listens on, in any of its threads, and `network.allow` pass; the rest is refused.
 * It reports each refusal to the test's thread, waiting for its acknowledgement before the caller
 * sees the error.
 */
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { allowPatterns, allows } from './allow';
import { ListeningPorts, sharedNetwork } from './listening';
import { blockedMessage, createPolicy, defaultRules } from './policy';
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

const shared = sharedNetwork();
const ports = shared ? ListeningPorts.of(shared.counts) : ListeningPorts.create();
const patterns = allowPatterns(shared?.allow ?? []);
const policy = createPolicy(
  defaultRules({
    serves: () => false,
    listening: (target) => ports.reaches(target),
    allowed: (target) => allows(patterns, target),
  }),
  (target) => blockedMessage(target) + WORKER_NOTE,
);
containThread({
  ports,
  decide: policy.decide,
  refused: report,
  label: (transport) => `worker ${transport}`,
  realm: globalThis,
  fetchTransport: 'worker fetch',
  preload: preloadArgs(),
});
