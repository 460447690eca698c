/**
 * Worker threads start with a preload that installs the same guards in the worker (see
 * ./worker-preload). The worker has no mock model or world: it refuses every connection that
 * is not loopback, and reports each refusal here, over a BroadcastChannel, so the test fails.
 */
import { join } from 'node:path';
import workerThreads, { BroadcastChannel } from 'node:worker_threads';
import { GUARDED, patch } from './guard';

/** Names the test thread's channel in the environment of the workers it starts (and theirs). */
const CHANNEL_VARIABLE = 'JEST_UNDERSTUDY_NETWORK_CHANNEL';

/**
 * Where this thread's workers report: one channel per test thread (Jest runs one file at a time
 * in each of its worker processes, or threads with `workerThreads`). A worker reads it from its
 * environment; one sharing its parent's (`env: SHARE_ENV`) runs in the process's main thread.
 */
export function reportChannel(): string {
  return process.env[CHANNEL_VARIABLE] ?? `jest-understudy.network.${process.pid}.${workerThreads.threadId}`;
}

export interface Report {
  id: string;
  message: string;
}

/** `execArgv` entries that load the preload into a worker. */
export function preloadArgs(): string[] {
  if (__filename.endsWith('.ts')) {
    // From the TypeScript sources (this repository's own tests): esbuild-register loads them, as it
    // loads jest.config.ts.
    return [
      '--require',
      require.resolve('esbuild-register'),
      '--require',
      join(__dirname, 'worker-preload.ts'),
    ];
  }
  return ['--require', join(__dirname, 'worker-preload.js')];
}

/** Fails the test for each refusal a worker reports, and acknowledges it; returns what stops listening. */
export function listenForWorkerReports(fail: (message: string) => void): () => void {
  const channel = new BroadcastChannel(reportChannel());
  channel.unref();
  channel.onmessage = (event) => {
    const report = (event as { data?: unknown }).data as Partial<Report> | undefined;
    if (typeof report?.id !== 'string' || typeof report.message !== 'string') return;
    fail(report.message);
    channel.postMessage({ ack: report.id });
  };
  return () => channel.close();
}

/**
 * Replaces `worker_threads.Worker` with one that loads the preload (appended to the worker's
 * `execArgv`, once) and tells the worker where to report.
 */
export function patchWorker(preload: string[], channel = reportChannel()): () => void {
  const loaded = (args: string[]) => args.includes(preload[preload.length - 1]);
  return patch(
    workerThreads,
    'Worker',
    (Worker) =>
      new Proxy(Worker, {
        // The mark is the proxy's own: defining it would land on Node's Worker.
        get: (target, key, receiver) => (key === GUARDED ? true : Reflect.get(target, key, receiver)),
        construct(target, args: unknown[], newTarget) {
          const [filename, options = {}] = args as [unknown, workerThreads.WorkerOptions | undefined];
          const own = options.execArgv;
          const env =
            options.env === workerThreads.SHARE_ENV
              ? options.env
              : {
                  ...((options.env as NodeJS.Dict<string> | undefined) ?? process.env),
                  [CHANNEL_VARIABLE]: channel,
                };
          const start = (inherited: string[]) =>
            Reflect.construct(
              target,
              [
                filename,
                { ...options, env, execArgv: loaded(inherited) ? inherited : [...inherited, ...preload] },
              ],
              newTarget,
            );
          try {
            return start(own ?? process.execArgv);
          } catch (error) {
            // Inherited flags a worker does not take (--max-old-space-size): the worker gets only the preload.
            if (own || (error as NodeJS.ErrnoException)?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
            return start([]);
          }
        },
      }),
  );
}
