#!/usr/bin/env node
/**
 * Bundles the service's worker thread (dist/worker/service-worker.js and everything it imports,
 * our modules and their dependencies) into dist/worker/service-thread.js, the entry
 * src/worker/open-service-worker.ts starts. Why: the thread otherwise resolves, stats, reads and
 * compiles several hundred small ES and CommonJS modules at every start, which was most of its
 * start-up time (docs/performance.md "Start-up: one file for the service thread"). The code is
 * the JavaScript tsc emitted without its comments and indentation; names are kept, so stack traces
 * still name every function.
 *
 * What the service imports with `import()` on first use stays out of the entry: esbuild splits it
 * into files of its own in dist/worker/service-thread-chunks/ (the BlueZ transport, with the
 * dbus-next and node-ble it imports), so a start loads it only when a gateway first scans or
 * connects, as it did before the bundle (src/gateway/transports/deferred-transport.ts).
 *
 * Left out altogether: the \`yaml\` package, which @fastify/swagger loads for YAML output the service
 * never produces (scripts/yaml-left-out.mjs stands in for it).
 *
 * Left outside the bundle, loaded from node_modules as before: the SQLite drivers (native
 * addons), the BlueZ stack (dbus-next, node-ble) and nodemailer, which load on first use.
 *
 * `npm run build` runs it; so do the tests' builds (test/support/global-setup.ts, buildPluginFolder in
 * test/support/homebridge-process.ts).
 */
import { buildSync } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SERVICE_THREAD_FILE = 'service-thread.js';

/** Where the parts loaded on first use go, beside the entry. */
export const SERVICE_THREAD_CHUNKS = 'service-thread-chunks';

export const SERVICE_THREAD_EXTERNALS = ['better-sqlite3', 'better-sqlite3-node20', 'dbus-next', 'node-ble', 'nodemailer'];

/** Bundles `<distDir>/worker/service-worker.js` into `<distDir>/worker/service-thread.js` (and its chunks). */
export function bundleServiceThread(distDir) {
  const workerDir = join(distDir, 'worker');
  // Chunk names carry a content hash: an earlier build's chunks would stay behind.
  rmSync(join(workerDir, SERVICE_THREAD_CHUNKS), { recursive: true, force: true });
  buildSync({
    entryPoints: { [SERVICE_THREAD_FILE.replace(/\.js$/, '')]: join(workerDir, 'service-worker.js') },
    outdir: workerDir,
    splitting: true,
    chunkNames: `${SERVICE_THREAD_CHUNKS}/[name]-[hash]`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: SERVICE_THREAD_EXTERNALS,
    // CommonJS dependencies call require(); in an ES module it has to be made (in every chunk).
    banner: { js: "import { createRequire as __serviceThreadRequire } from 'node:module'; const require = __serviceThreadRequire(import.meta.url);" },
    legalComments: 'eof',
    // Comments and indentation out (a third of the file): less to read, parse and keep in memory.
    minifyWhitespace: true,
    // @fastify/swagger's YAML output is never asked for: its parser stays out (yaml-left-out.mjs).
    alias: { yaml: fileURLToPath(new URL('./yaml-left-out.mjs', import.meta.url)) },
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  bundleServiceThread(process.argv[2] ?? join(fileURLToPath(new URL('..', import.meta.url)), 'dist'));
}
