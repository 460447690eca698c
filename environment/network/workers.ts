/**
 * Worker threads start with a preload that installs the same guards in the worker (see
 * ./worker-preload). The worker has no mock model or world: it refuses every connection that
 * is not loopback, and reports each refusal here, over a BroadcastChannel, so the test fails.
 */
import { join } from 'node:path';
import workerThreads, { BroadcastChannel } from 'node:worker_threads';
import { GUARDED, patch } from './guard';

/** One per process: Jest runs one test file at a time in each of its worker processes. */
export const REPORT_CHANNEL = `jest-understudy.network.${process.pid}`;

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
  const channel = new BroadcastChannel(REPORT_CHANNEL);
  channel.unref();
  channel.onmessage = (event) => {
    const report = (event as { data?: unknown }).data as Partial<Report> | undefined;
    if (typeof report?.id !== 'string' || typeof report.message !== 'string') return;
    fail(report.message);
    channel.postMessage({ ack: report.id });
  };
  return () => channel.close();
}

/** Replaces `worker_threads.Worker` with one that appends the preload to the worker's `execArgv`. */
export function patchWorker(preload: string[]): () => void {
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
          try {
            return Reflect.construct(
              target,
              [filename, { ...options, execArgv: [...(own ?? process.execArgv), ...preload] }],
              newTarget,
            );
          } catch (error) {
            // Inherited flags a worker does not take (--max-old-space-size): the worker gets only the preload.
            if (own || (error as NodeJS.ErrnoException)?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
            return Reflect.construct(target, [filename, { ...options, execArgv: preload }], newTarget);
          }
        },
      }),
  );
}
