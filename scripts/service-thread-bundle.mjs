#!/usr/bin/env node
/**
 * Bundles the service's worker thread (dist/worker/service-worker.js and everything it imports,
 * our modules and their dependencies) into one file, dist/worker/service-thread.js, the entry
 * src/worker/open-service-worker.ts starts. Why: the thread otherwise resolves, stats, reads and
 * compiles several hundred small ES and CommonJS modules at every start, which was most of its
 * start-up time (docs/performance.md "Start-up: one file for the service thread"). The code is
 * the same JavaScript tsc emitted, not minified.
 *
 * Left outside the bundle, loaded from node_modules as before: the SQLite drivers (native
 * addons), the BlueZ stack (dbus-next, node-ble) and nodemailer, which load on first use.
 *
 * `npm run build` runs it; so do the tests' builds (test/support/global-setup.ts, buildPluginFolder in
 * test/support/homebridge-process.ts).
 */
import { buildSync } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SERVICE_THREAD_FILE = 'service-thread.js';

export const SERVICE_THREAD_EXTERNALS = ['better-sqlite3', 'better-sqlite3-node20', 'dbus-next', 'node-ble', 'nodemailer'];

/** Bundles `<distDir>/worker/service-worker.js` into `<distDir>/worker/service-thread.js`. */
export function bundleServiceThread(distDir) {
  buildSync({
    entryPoints: [join(distDir, 'worker', 'service-worker.js')],
    outfile: join(distDir, 'worker', SERVICE_THREAD_FILE),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: SERVICE_THREAD_EXTERNALS,
    // CommonJS dependencies call require(); in an ES module it has to be made.
    banner: { js: "import { createRequire as __serviceThreadRequire } from 'node:module'; const require = __serviceThreadRequire(import.meta.url);" },
    legalComments: 'eof',
    // Comments and indentation out (a third of the file): less to read, parse and keep in memory.
    // Names stay, so stack traces still name every function.
    minifyWhitespace: true,
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  bundleServiceThread(process.argv[2] ?? join(fileURLToPath(new URL('..', import.meta.url)), 'dist'));
}
