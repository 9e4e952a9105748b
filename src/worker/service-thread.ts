import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { SERVICE_THREAD_BUNDLE, loadServiceThread, type CodeCacheUse } from './service-thread-code.js';
import type { WorkerMessage } from './service-protocol.js';

/*
 * Entry point of the worker thread that runs the embedded service inside Homebridge
 * (open-service-worker.ts starts it): loads the bundled service, dist/worker/service-thread.cjs,
 * with V8's code cache (service-thread-code.ts), says with which in Homebridge's debug log, and once
 * the service has been open for {@link SAVE_RUN_CACHE_AFTER_MS} keeps what was compiled for the next
 * start. Loaded from dist/ only.
 */

/**
 * How long after the service opened the run cache is written: the API listens and the locks have
 * connected, and the start's memory peak has passed (writing it copies the compiled code once: at
 * 10 s it added ~5-8 MiB to the first start's peak in the `footprint` bench).
 */
export const SAVE_RUN_CACHE_AFTER_MS = 60_000;

const CACHE_WORDS: Readonly<Record<CodeCacheUse, string>> = {
  run: 'with the code cache of an earlier start',
  build: 'with the code cache made at install',
  none: 'without a code cache (none yet)',
  refused: 'without a code cache (V8 refused it: another Node or other V8 flags; a new one follows)',
};

const thread = loadServiceThread(fileURLToPath(new URL(`./${SERVICE_THREAD_BUNDLE}`, import.meta.url)));
const started = thread.exports.started as Promise<void>;
// A fault of the host rejects here, unhandled, and ends the thread as it always did.
void started.then(() => {
  const line: WorkerMessage = { type: 'log', level: 'debug', message: `The service thread's code was compiled ${CACHE_WORDS[thread.cacheUse]}.` };
  parentPort?.postMessage(line);
  setTimeout(() => {
    void thread.saveRunCache();
  }, SAVE_RUN_CACHE_AFTER_MS).unref();
});
