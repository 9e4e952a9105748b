import { parentPort, workerData } from 'node:worker_threads';
import { openEmbeddedService } from './open-embedded-service.js';
import { hostService } from './service-host.js';
import type { WorkerServiceOptions } from './service-protocol.js';

/*
 * What the worker thread that runs the embedded service inside Homebridge runs (see
 * open-service-worker.ts): bundled with everything it imports into dist/worker/service-thread.cjs
 * (scripts/service-thread-bundle.mjs), which the thread's entry, service-thread.ts, loads.
 */
if (!parentPort) throw new Error('the service thread runs as a worker thread only');

/** Settles once the service is open and hosted (or its failure reported); rejects only on a fault of the host itself. */
export const started: Promise<void> = hostService(parentPort, workerData as WorkerServiceOptions, openEmbeddedService);
