import { Worker } from 'node:worker_threads';
import type { ServiceOptions } from '../service-options.js';
import type { EmbeddedService } from '../homebridge/embedded-service.js';
import { ServiceClient } from './service-client.js';
import type { WorkerServiceOptions } from './service-protocol.js';
import { describeError } from '../domain/errors.js';

/** The worker's entry, next to this module in dist/: service-worker.js bundled into one file by scripts/service-thread-bundle.mjs (tests pass the built one explicitly). */
export const SERVICE_WORKER_ENTRY = new URL('./service-thread.js', import.meta.url);

/**
 * The service thread's young generation, in MiB (V8 splits it into two semi-spaces and a third for
 * large objects: 12 MiB = 4 MiB semi-spaces). V8's default lets a busy start grow the new space to
 * 32 MiB that it then keeps; capped, the thread holds ~17 MiB less for its whole life, at the cost
 * of more (sub-millisecond) scavenges. 6 MiB took ~4 MiB more off, but at a quarter core (the
 * `pi-budget` bench) the extra scavenges cost ~300 ms of start and ~90 ms of HomeKit p99, so 12
 * stays. docs/performance.md "footprint" has the figures.
 */
export const SERVICE_YOUNG_GENERATION_MB = 12;

/** How long `close` waits for the service to close cleanly before terminating the thread. */
export const CLOSE_TIMEOUT_MS = 10_000;

export interface ServiceWorkerOptions {
  /** The worker's entry module (default {@link SERVICE_WORKER_ENTRY}). */
  entry?: URL;
  /** Ceiling for a clean close (default {@link CLOSE_TIMEOUT_MS}). */
  closeTimeoutMs?: number;
}

/** The service on its worker thread, as the platform uses it; `threadId` for diagnostics and tests. */
export interface WorkerEmbeddedService extends EmbeddedService {
  readonly threadId: number;
}

/**
 * Opens the embedded service on a worker thread (docs/architecture.md "Threads"): the store and
 * every fsync, the REST API, the command engine, Bluetooth and the event layer run there, off
 * Homebridge's event loop. Resolves once the service is open; rejects (with the thread ended) when
 * it cannot open. Afterwards a crash of the thread is logged once as an error and degrades the
 * HomeKit side (locks offline, commands `unavailable`); it never throws into Homebridge.
 *
 * `options.clock` and `options.eventSink` cannot cross threads and are not supported here.
 */
export async function openServiceInWorker(options: ServiceOptions, workerOptions: ServiceWorkerOptions = {}): Promise<WorkerEmbeddedService> {
  const { logger } = options;
  const data: WorkerServiceOptions = { config: options.config, dataDir: options.dataDir, demo: options.demo ?? options.config.demo ?? false };
  const worker = new Worker(workerOptions.entry ?? SERVICE_WORKER_ENTRY, {
    workerData: data,
    name: 'ekey-locks-service',
    resourceLimits: { maxYoungGenerationSizeMb: SERVICE_YOUNG_GENERATION_MB },
  });
  const client = new ServiceClient(worker, logger);
  let stopping = false;
  let reported = false;
  // While opening, a failure is the error `openServiceInWorker` rejects with, not a log line.
  let opening = true;
  const lost = (reason: string): void => {
    const quiet = stopping || opening;
    client.gone(reason);
    if (quiet || reported) return;
    reported = true;
    logger.error(`eKey access service stopped unexpectedly (${reason}); the locks show as not responding until Homebridge restarts.`);
  };
  worker.on('error', (error) => {
    lost(error.stack ?? error.message);
  });
  worker.on('messageerror', (error) => {
    logger.error(`eKey access service: unreadable message from its thread: ${error.message}`);
  });
  worker.on('exit', (code) => {
    lost(`its thread exited with code ${code}`);
  });

  try {
    await client.whenOpened();
    opening = false;
  } catch (error) {
    stopping = true;
    await worker.terminate();
    throw new Error(`the access service could not open: ${describeError(error)}`);
  }

  const close = async (): Promise<void> => {
    if (stopping) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.close(),
        new Promise<void>((_, reject) => {
          timer = setTimeout(() => {
            reject(new Error(`the access service did not close within ${workerOptions.closeTimeoutMs ?? CLOSE_TIMEOUT_MS} ms`));
          }, workerOptions.closeTimeoutMs ?? CLOSE_TIMEOUT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      stopping = true;
      client.gone('the service was stopped');
      await worker.terminate();
    }
  };

  return {
    threadId: worker.threadId,
    listen: (port, host) => client.listen(port, host),
    demoInfo: () => client.demoInfo(),
    lockPort: () => client.lockPort(),
    demoControl: () => client.demoControl(),
    close,
  };
}
