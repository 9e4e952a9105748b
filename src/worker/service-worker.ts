import { parentPort, workerData } from 'node:worker_threads';
import { openEmbeddedService } from './open-embedded-service.js';
import { hostService } from './service-host.js';
import type { WorkerServiceOptions } from './service-protocol.js';

/*
 * Entry point of the worker thread that runs the embedded service inside Homebridge (see
 * open-service-worker.ts). Loaded from dist/ only: Node starts it as plain JavaScript.
 */
if (!parentPort) throw new Error('service-worker.js runs as a worker thread only');
await hostService(parentPort, workerData as WorkerServiceOptions, openEmbeddedService);
